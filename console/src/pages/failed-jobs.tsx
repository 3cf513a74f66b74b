// Work about a document that ran out of attempts (its send to DGII, its delivery to the buyer), newest first: open
// or closed as the filter in the address says, the API's cursor paging, each job linked to its document, where the
// retry is.
import { useState } from 'preact/hooks';
import { ok } from '../../../sdk/src/index.js';
import { useLoad } from '../api.js';
import { gmt4Time } from '../format.js';
import { isMessageKey, useI18n } from '../i18n.js';
import { Link } from '../parts/link.js';
import { Paging } from '../parts/paging.js';
import { Status } from '../parts/status.js';
import { WhenLoaded } from '../parts/when-loaded.js';
import { navigate, useLocation } from '../router.js';
import { useSession } from '../session.js';

const openness = ['true', 'false'] as const;

export function FailedJobsPage() {
  const { t } = useI18n();
  const { client } = useSession();
  const { query } = useLocation();
  const open = query.get('open') === 'true' ? true : query.get('open') === 'false' ? false : undefined;
  const cursor = query.get('cursor') ?? undefined;
  const loaded = useLoad(
    () => ok(client.GET('/api/v1/trabajos-fallidos', { params: { query: { open, cursor, limit: 50 } } })),
    [open, cursor],
  );
  const kind = (value: string) => {
    const key = `failedJobs.kind.${value}`;
    return isMessageKey(key) ? t(key) : value;
  };

  return (
    <section>
      <h1>{t('failedJobs.title')}</h1>
      <p class="hint">{t('failedJobs.intro')}</p>
      <Filter open={query.get('open') ?? ''} />
      <WhenLoaded loaded={loaded}>
        {(page) => (
          <>
            {page.data.length === 0 ? (
              <p class="empty">{t('failedJobs.none')}</p>
            ) : (
              <table class="list">
                <caption class="visually-hidden">{t('failedJobs.title')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('failedJobs.opened')}</th>
                    <th scope="col">{t('failedJobs.kind')}</th>
                    <th scope="col">{t('failedJobs.document')}</th>
                    <th scope="col" class="amount">
                      {t('failedJobs.attempts')}
                    </th>
                    <th scope="col">{t('failedJobs.reason')}</th>
                    <th scope="col">{t('failedJobs.state')}</th>
                    <th scope="col">{t('failedJobs.closed')}</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((job) => (
                    <tr key={job.id}>
                      <td>{gmt4Time(job.openedAt)}</td>
                      <td>{kind(job.kind)}</td>
                      <td>
                        {job.documentId === null ? (
                          '—'
                        ) : (
                          <Link to={`/documentos/${job.documentId}`}>
                            <code>{job.documentId}</code>
                          </Link>
                        )}
                      </td>
                      <td class="amount">{job.attempts}</td>
                      <td class="wrap">{job.reason}</td>
                      <td>
                        <Status group="job" value={job.open ? 'open' : 'closed'} />
                      </td>
                      <td class="wrap">
                        {job.closedAt === null ? '—' : gmt4Time(job.closedAt)}
                        {job.closedBecause === null ? null : <div class="cause">{job.closedBecause}</div>}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <Paging to="/trabajos-fallidos" query={query} nextCursor={page.meta.nextCursor} />
          </>
        )}
      </WhenLoaded>
    </section>
  );
}

function Filter(props: { open: string }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(props.open);
  return (
    <form
      class="filters"
      role="search"
      onSubmit={(event) => {
        event.preventDefault();
        navigate('/trabajos-fallidos', new URLSearchParams(open === '' ? {} : { open }));
      }}
    >
      <div class="field">
        <label for="filter-open">{t('failedJobs.state')}</label>
        <select
          id="filter-open"
          value={open}
          onChange={(event) => {
            setOpen(event.currentTarget.value);
          }}
        >
          <option value="">{t('common.any')}</option>
          {openness.map((value) => (
            <option key={value} value={value}>
              {t(value === 'true' ? 'job.open' : 'job.closed')}
            </option>
          ))}
        </select>
      </div>
      <button type="submit">{t('common.filter')}</button>
    </form>
  );
}
