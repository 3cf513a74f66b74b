// The inbox: the e-CF other taxpayers sent to the company, newest first, with the API's filters kept in the address
// (a filtered inbox can be reloaded and shared) and its cursor paging; each row a link to the document's page.
import { useState } from 'preact/hooks';
import { ok } from '../../../sdk/src/index.js';
import { useLoad } from '../api.js';
import { dop, gmt4Time } from '../format.js';
import { useI18n } from '../i18n.js';
import type { MessageKey } from '../messages.js';
import { Link } from '../parts/link.js';
import { Paging } from '../parts/paging.js';
import { Status } from '../parts/status.js';
import { WhenLoaded } from '../parts/when-loaded.js';
import { navigate, oneOf, useLocation } from '../router.js';
import { useSession } from '../session.js';

// GET /api/v1/recibidos's enums: the types DGII's receiver takes, the ARECF's two answers.
const receivedTypes = ['31', '33', '34', '44'] as const;
const receivedStatuses = ['received', 'not_received'] as const;
const filterNames = ['issuerRnc', 'ecfType', 'status', 'receivedFrom', 'receivedTo'] as const;
type FilterName = (typeof filterNames)[number];

const isDay = (value: string | null): value is string => value !== null && /^\d{4}-\d{2}-\d{2}$/.test(value);

export function ReceivedPage() {
  const { t } = useI18n();
  const { client } = useSession();
  const { query } = useLocation();
  const issuerRnc = query.get('issuerRnc') ?? undefined;
  const ecfType = oneOf(receivedTypes, query.get('ecfType'));
  const status = oneOf(receivedStatuses, query.get('status'));
  const receivedFrom = isDay(query.get('receivedFrom')) ? (query.get('receivedFrom') ?? undefined) : undefined;
  const receivedTo = isDay(query.get('receivedTo')) ? (query.get('receivedTo') ?? undefined) : undefined;
  const cursor = query.get('cursor') ?? undefined;
  const page = useLoad(async () => {
    const { data, meta } = await ok(
      client.GET('/api/v1/recibidos', {
        params: { query: { issuerRnc, ecfType, status, receivedFrom, receivedTo, cursor, limit: 50 } },
      }),
    );
    return { items: data, nextCursor: meta.nextCursor };
  }, [issuerRnc, ecfType, status, receivedFrom, receivedTo, cursor]);

  return (
    <section>
      <h1>{t('received.title')}</h1>
      <Filters query={query} />
      <WhenLoaded loaded={page}>
        {(loaded) => (
          <>
            {loaded.items.length === 0 ? (
              <p class="empty">{t('received.none')}</p>
            ) : (
              <table class="list">
                <caption class="visually-hidden">{t('received.title')}</caption>
                <thead>
                  <tr>
                    <th scope="col">e-NCF</th>
                    <th scope="col">{t('received.issuer')}</th>
                    <th scope="col">{t('documents.type')}</th>
                    <th scope="col">{t('documents.issued')}</th>
                    <th scope="col" class="amount">
                      {t('documents.total')}
                    </th>
                    <th scope="col">{t('received.reception')}</th>
                    <th scope="col">{t('received.commercial')}</th>
                    <th scope="col">{t('received.receivedAt')}</th>
                  </tr>
                </thead>
                <tbody>
                  {loaded.items.map((document) => (
                    <tr key={document.id}>
                      <td>
                        <Link to={`/recibidos/${document.id}`}>{document.eNCF}</Link>
                      </td>
                      <td class="issuer">
                        {document.issuer.rnc}
                        {document.issuer.name === null ? null : <span class="subtle">{document.issuer.name}</span>}
                      </td>
                      <td>{document.ecfType ?? '—'}</td>
                      <td>{document.fechaEmision ?? '—'}</td>
                      <td class="amount">{dop(document.montoTotal)}</td>
                      <td>
                        <Status group="receivedStatus" value={document.status} />
                      </td>
                      <td>
                        {document.commercialStatus !== null ? (
                          <Status group="commercial" value={document.commercialStatus} />
                        ) : document.status === 'received' ? (
                          <span class="subtle">{t('received.noResponse')}</span>
                        ) : (
                          '—'
                        )}
                      </td>
                      <td>{gmt4Time(document.receivedAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <Paging to="/recibidos" query={query} nextCursor={loaded.nextCursor} />
          </>
        )}
      </WhenLoaded>
    </section>
  );
}

function Filters({ query }: { query: URLSearchParams }) {
  const { t } = useI18n();
  const [values, setValues] = useState(
    () => Object.fromEntries(filterNames.map((name) => [name, query.get(name) ?? ''])) as Record<FilterName, string>,
  );
  const set = (name: FilterName) => (event: { currentTarget: HTMLInputElement | HTMLSelectElement }) => {
    setValues({ ...values, [name]: event.currentTarget.value });
  };
  const select = (name: FilterName, label: MessageKey, options: readonly string[], text: (value: string) => string) => (
    <div class="field">
      <label for={`filter-${name}`}>{t(label)}</label>
      <select id={`filter-${name}`} value={values[name]} onChange={set(name)}>
        <option value="">{t('common.any')}</option>
        {options.map((option) => (
          <option key={option} value={option}>
            {text(option)}
          </option>
        ))}
      </select>
    </div>
  );
  const day = (name: FilterName, label: MessageKey) => (
    <div class="field">
      <label for={`filter-${name}`}>{t(label)}</label>
      <input id={`filter-${name}`} type="date" value={values[name]} onInput={set(name)} />
    </div>
  );
  return (
    <form
      class="filters"
      role="search"
      onSubmit={(event) => {
        event.preventDefault();
        const next = new URLSearchParams();
        for (const name of filterNames) {
          const value = values[name].trim();
          if (value !== '') next.set(name, value);
        }
        navigate('/recibidos', next);
      }}
    >
      <div class="field">
        <label for="filter-issuerRnc">{t('received.issuerRnc')}</label>
        <input
          id="filter-issuerRnc"
          type="text"
          inputMode="numeric"
          autocomplete="off"
          size={13}
          value={values.issuerRnc}
          onInput={set('issuerRnc')}
        />
      </div>
      {select(
        'ecfType',
        'documents.type',
        receivedTypes,
        (value) => `${value} · ${t(`ecfType.${value}` as MessageKey)}`,
      )}
      {select('status', 'received.reception', receivedStatuses, (value) => t(`receivedStatus.${value}` as MessageKey))}
      {day('receivedFrom', 'received.receivedFrom')}
      {day('receivedTo', 'received.receivedTo')}
      <button type="submit">{t('common.filter')}</button>
    </form>
  );
}
