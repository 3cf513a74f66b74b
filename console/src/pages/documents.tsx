// The company's documents, newest first: filters kept in the address (a filtered list can be reloaded and shared),
// the API's cursor paging, each row a link to the document's page.
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

const documentStatuses = [
  'signed',
  'queued',
  'sending',
  'in_process',
  'accepted',
  'accepted_conditional',
  'rejected',
  'send_failed',
  'not_found',
] as const;
const ecfTypes = ['31', '32', '33', '34', '41', '43', '44', '45', '46', '47'] as const;
const deliveryStatuses = ['pending', 'delivered', 'not_received', 'failed', 'skipped'] as const;

type Status = (typeof documentStatuses)[number];
type EcfType = (typeof ecfTypes)[number];
type Delivery = (typeof deliveryStatuses)[number];

const filterNames = ['eNCF', 'rncComprador', 'desde', 'hasta', 'status', 'ecfType', 'entrega'] as const;

export function DocumentsPage() {
  const { t } = useI18n();
  const { client } = useSession();
  const { query } = useLocation();
  const status = oneOf<Status>(documentStatuses, query.get('status'));
  const ecfType = oneOf<EcfType>(ecfTypes, query.get('ecfType'));
  const entrega = oneOf<Delivery>(deliveryStatuses, query.get('entrega'));
  // Typed as the person wrote them: the API says what is wrong with one (a 400 naming the parameter).
  const given = (name: string) => query.get(name)?.trim() || undefined;
  const [eNCF, rncComprador, desde, hasta] = [
    given('eNCF')?.toUpperCase(),
    given('rncComprador'),
    given('desde'),
    given('hasta'),
  ];
  const cursor = query.get('cursor') ?? undefined;
  const page = useLoad(async () => {
    const { data, meta } = await ok(
      client.GET('/api/v1/documentos', {
        params: { query: { eNCF, rncComprador, desde, hasta, status, ecfType, entrega, cursor, limit: 50 } },
      }),
    );
    return { items: data, nextCursor: meta.nextCursor };
  }, [eNCF, rncComprador, desde, hasta, status, ecfType, entrega, cursor]);

  return (
    <section>
      <h1>{t('documents.title')}</h1>
      <Filters query={query} />
      <WhenLoaded loaded={page}>
        {(loaded) => (
          <>
            {loaded.items.length === 0 ? (
              <p class="empty">{t('documents.none')}</p>
            ) : (
              <table class="list">
                <caption class="visually-hidden">{t('documents.title')}</caption>
                <thead>
                  <tr>
                    <th scope="col">e-NCF</th>
                    <th scope="col">{t('documents.type')}</th>
                    <th scope="col">{t('documents.issued')}</th>
                    <th scope="col">{t('documents.buyer')}</th>
                    <th scope="col" class="amount">
                      {t('documents.total')}
                    </th>
                    <th scope="col">{t('documents.status')}</th>
                    <th scope="col">{t('documents.delivery')}</th>
                    <th scope="col">{t('documents.created')}</th>
                  </tr>
                </thead>
                <tbody>
                  {loaded.items.map((document) => (
                    <tr key={document.id}>
                      <td>
                        <Link to={`/documentos/${document.id}`}>{document.eNCF}</Link>
                      </td>
                      <td>{document.ecfType}</td>
                      <td>{document.fechaEmision}</td>
                      <td>{document.rncComprador ?? '—'}</td>
                      <td class="amount">{dop(document.montoTotal)}</td>
                      <td>
                        <Status value={document.status} />
                      </td>
                      <td>
                        {document.entrega === null ? '—' : <Status group="delivery" value={document.entrega.status} />}
                      </td>
                      <td>{gmt4Time(document.createdAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <Paging to="/documentos" query={query} nextCursor={loaded.nextCursor} />
          </>
        )}
      </WhenLoaded>
    </section>
  );
}

function Filters({ query }: { query: URLSearchParams }) {
  const { t } = useI18n();
  const [values, setValues] = useState(() =>
    Object.fromEntries(filterNames.map((name) => [name, query.get(name) ?? ''])),
  );
  const select = (
    name: (typeof filterNames)[number],
    label: MessageKey,
    options: readonly string[],
    text: (value: string) => string,
  ) => (
    <div class="field">
      <label for={`filter-${name}`}>{t(label)}</label>
      <select
        id={`filter-${name}`}
        value={values[name]}
        onChange={(event) => {
          setValues({ ...values, [name]: event.currentTarget.value });
        }}
      >
        <option value="">{t('common.any')}</option>
        {options.map((option) => (
          <option key={option} value={option}>
            {text(option)}
          </option>
        ))}
      </select>
    </div>
  );
  const text = (name: (typeof filterNames)[number], label: MessageKey, placeholder?: string) => (
    <div class="field">
      <label for={`filter-${name}`}>{t(label)}</label>
      <input
        id={`filter-${name}`}
        type="search"
        size={14}
        placeholder={placeholder}
        value={values[name]}
        onInput={(event) => {
          setValues({ ...values, [name]: event.currentTarget.value });
        }}
      />
    </div>
  );
  const date = (name: 'desde' | 'hasta', label: MessageKey) => (
    <div class="field">
      <label for={`filter-${name}`}>{t(label)}</label>
      <input
        id={`filter-${name}`}
        type="date"
        value={values[name]}
        onInput={(event) => {
          setValues({ ...values, [name]: event.currentTarget.value });
        }}
      />
    </div>
  );
  return (
    <form
      class="filters"
      role="search"
      onSubmit={(event) => {
        event.preventDefault();
        const next = new URLSearchParams();
        for (const name of filterNames)
          if (values[name] !== '' && values[name] !== undefined) next.set(name, values[name]);
        navigate('/documentos', next);
      }}
    >
      {text('eNCF', 'documents.searchEncf', 'E310000000001')}
      {text('rncComprador', 'documents.buyer')}
      {date('desde', 'documents.from')}
      {date('hasta', 'documents.to')}
      {select('status', 'documents.status', documentStatuses, (value) => t(`status.${value}` as MessageKey))}
      {select('ecfType', 'documents.type', ecfTypes, (value) => `${value} · ${t(`ecfType.${value}` as MessageKey)}`)}
      {select('entrega', 'documents.delivery', deliveryStatuses, (value) => t(`delivery.${value}` as MessageKey))}
      <button type="submit">{t('common.filter')}</button>
    </form>
  );
}
