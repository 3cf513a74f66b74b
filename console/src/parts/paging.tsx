// The API's cursor paging as two links, the cursor kept in the address under `name` (a page of a list can be
// reloaded and shared); a page showing two lists keeps one cursor for each.
import { useI18n } from '../i18n.js';
import { withQuery } from '../router.js';
import { Link } from './link.js';

export function Paging(props: {
  to: string;
  query: URLSearchParams;
  name?: string;
  nextCursor: string | null;
  label?: string;
}) {
  const { t } = useI18n();
  const name = props.name ?? 'cursor';
  if (props.query.get(name) === null && props.nextCursor === null) return null;
  return (
    <nav class="paging" aria-label={props.label ?? t('common.paging')}>
      {props.query.get(name) === null ? null : (
        <Link to={props.to} query={withQuery(props.query, name, undefined)}>
          {t('common.firstPage')}
        </Link>
      )}
      {props.nextCursor === null ? null : (
        <Link to={props.to} query={withQuery(props.query, name, props.nextCursor)}>
          {t('common.nextPage')}
        </Link>
      )}
    </nav>
  );
}
