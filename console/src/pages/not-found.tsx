import { useI18n } from '../i18n.js';
import { Link } from '../parts/link.js';

export function NotFoundPage() {
  const { t } = useI18n();
  return (
    <section>
      <h1>{t('notFound.title')}</h1>
      <p>{t('notFound.detail')}</p>
      <Link to="/documentos">{t('nav.documents')}</Link>
    </section>
  );
}
