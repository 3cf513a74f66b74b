// What a page shows while the API answers: announced to a screen reader (role=status), never a blank page.
import { useI18n } from '../i18n.js';

export function Loading() {
  const { t } = useI18n();
  return (
    <p role="status" class="loading">
      {t('common.loading')}
    </p>
  );
}
