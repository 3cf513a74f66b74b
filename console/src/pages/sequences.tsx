// The company's e-NCF: the ranges DGII authorised with what is used and left of each, the burned numbers that await
// annulment, the annulment requests with DGII's answers (a failed one retried from here, as `sequences:manage`
// allows), and the blocks handed to devices that issue offline. The two long lists page by cursors kept in the
// address; while an annulment is on its way to DGII, the page follows it.
import { ok, type components } from '../../../sdk/src/index.js';
import { useAction, useFollow, useLoad } from '../api.js';
import { count, gmt4Time } from '../format.js';
import { useI18n } from '../i18n.js';
import type { MessageKey } from '../messages.js';
import { Outcome } from '../parts/outcome.js';
import { Paging } from '../parts/paging.js';
import { Status } from '../parts/status.js';
import { WhenLoaded } from '../parts/when-loaded.js';
import { useLocation } from '../router.js';
import { useSession } from '../session.js';

type Range = components['schemas']['RangeView'];
type Allocation = components['schemas']['AllocationView'];
type Annulment = components['schemas']['AnnulmentView'];
type BurnedSpan = components['schemas']['BurnedSpan'];

const onItsWay = new Set(['pending', 'sending']);

export function SequencesPage() {
  const { t } = useI18n();
  const { client } = useSession();
  const { query } = useLocation();
  const annulmentsCursor = query.get('anulaciones') ?? undefined;
  const allocationsCursor = query.get('asignaciones') ?? undefined;
  const loaded = useLoad(async () => {
    const [ranges, burned, annulments, allocations] = await Promise.all([
      ok(client.GET('/api/v1/secuencias/rangos')),
      ok(client.GET('/api/v1/secuencias/anulaciones/quemadas')),
      ok(client.GET('/api/v1/secuencias/anulaciones', { params: { query: { cursor: annulmentsCursor, limit: 20 } } })),
      ok(
        client.GET('/api/v1/secuencias/asignaciones', { params: { query: { cursor: allocationsCursor, limit: 20 } } }),
      ),
    ]);
    return { ranges: ranges.data, burned: burned.data, annulments, allocations };
  }, [annulmentsCursor, allocationsCursor]);
  useFollow(
    loaded.state === 'ok' && loaded.data.annulments.data.some((annulment) => onItsWay.has(annulment.status)),
    loaded.reload,
  );

  return (
    <section>
      <h1>{t('sequences.title')}</h1>
      <WhenLoaded loaded={loaded}>
        {(data) => (
          <>
            <Ranges ranges={data.ranges} />
            <Burned spans={data.burned} />
            <Annulments annulments={data.annulments.data} onRetried={loaded.reload} />
            <Paging
              to="/secuencias"
              query={query}
              name="anulaciones"
              nextCursor={data.annulments.meta.nextCursor}
              label={t('sequences.annulmentPaging')}
            />
            <Allocations allocations={data.allocations.data} />
            <Paging
              to="/secuencias"
              query={query}
              name="asignaciones"
              nextCursor={data.allocations.meta.nextCursor}
              label={t('sequences.allocationPaging')}
            />
          </>
        )}
      </WhenLoaded>
    </section>
  );
}

function TypeCell({ ecfType }: { ecfType: string }) {
  const { t } = useI18n();
  return (
    <td class="wrap">
      {ecfType}
      <div class="subtle">{t(`ecfType.${ecfType}` as MessageKey)}</div>
    </td>
  );
}

function Ranges({ ranges }: { ranges: Range[] }) {
  const { t } = useI18n();
  return (
    <section>
      <h2>{t('sequences.ranges')}</h2>
      {ranges.length === 0 ? (
        <p class="empty">{t('sequences.noRanges')}</p>
      ) : (
        <table class="list">
          <caption class="visually-hidden">{t('sequences.ranges')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('documents.type')}</th>
              <th scope="col">{t('common.numbers')}</th>
              <th scope="col" class="amount">
                {t('sequences.used')}
              </th>
              <th scope="col" class="amount">
                {t('sequences.reserved')}
              </th>
              <th scope="col" class="amount">
                {t('sequences.burned')}
              </th>
              <th scope="col" class="amount">
                {t('sequences.annulled')}
              </th>
              <th scope="col" class="amount">
                {t('sequences.withdrawn')}
              </th>
              <th scope="col">{t('sequences.remaining')}</th>
              <th scope="col">{t('sequences.expires')}</th>
              <th scope="col">{t('sequences.status')}</th>
            </tr>
          </thead>
          <tbody>
            {ranges.map((range) => {
              const { availability } = range;
              return (
                <tr key={range.id}>
                  <TypeCell ecfType={range.ecfType} />
                  <td>
                    <code>{range.from}</code> – <code>{range.to}</code>
                    <div class="subtle">
                      {t('sequences.next')}: {range.next === null ? '—' : <code>{range.next}</code>}
                    </div>
                  </td>
                  <td class="amount">{count(availability.used)}</td>
                  <td class="amount">{count(availability.reserved)}</td>
                  <td class="amount">{count(availability.burned)}</td>
                  <td class="amount">{count(availability.annulled)}</td>
                  <td class="amount">{count(availability.withdrawn)}</td>
                  <td>
                    <meter
                      class="left"
                      min={0}
                      max={availability.total}
                      low={availability.total / 10}
                      optimum={availability.total}
                      value={availability.remaining}
                      aria-hidden="true"
                    />{' '}
                    {t('sequences.remainingOf', {
                      remaining: count(availability.remaining),
                      total: count(availability.total),
                    })}
                  </td>
                  <td class="wrap">{range.expiresOn ?? t('sequences.noExpiry')}</td>
                  <td>
                    <Status group="range" value={range.status} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Burned({ spans }: { spans: BurnedSpan[] }) {
  const { t } = useI18n();
  return (
    <section>
      <h2>{t('sequences.burnedTitle')}</h2>
      <p class="hint">{t('sequences.burnedHint')}</p>
      {spans.length === 0 ? (
        <p class="empty">{t('sequences.noBurned')}</p>
      ) : (
        <table class="list">
          <caption class="visually-hidden">{t('sequences.burnedTitle')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('documents.type')}</th>
              <th scope="col">{t('common.numbers')}</th>
              <th scope="col" class="amount">
                {t('sequences.count')}
              </th>
              <th scope="col">{t('sequences.causes')}</th>
            </tr>
          </thead>
          <tbody>
            {spans.map((span) => (
              <tr key={span.from}>
                <TypeCell ecfType={span.ecfType} />
                <td>
                  <code>{span.from}</code> – <code>{span.to}</code>
                </td>
                <td class="amount">{count(span.count)}</td>
                <td class="wrap">{span.causes.join('; ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Annulments({ annulments, onRetried }: { annulments: Annulment[]; onRetried: () => void }) {
  const { t } = useI18n();
  const { client, can } = useSession();
  const action = useAction();
  const manage = can('sequences:manage');
  const retry = (id: string) =>
    action.run(id, async () => {
      await ok(client.POST('/api/v1/secuencias/anulaciones/{id}/reintentar', { params: { path: { id } } }));
      onRetried();
      return t('common.taken');
    });
  return (
    <section>
      <h2>{t('sequences.annulments')}</h2>
      <Outcome action={action} />
      {annulments.length === 0 ? (
        <p class="empty">{t('sequences.noAnnulments')}</p>
      ) : (
        <table class="list">
          <caption class="visually-hidden">{t('sequences.annulments')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('common.created')}</th>
              <th scope="col">{t('common.numbers')}</th>
              <th scope="col" class="amount">
                {t('sequences.total')}
              </th>
              <th scope="col">{t('sequences.status')}</th>
              <th scope="col" class="amount">
                {t('sequences.attempts')}
              </th>
              <th scope="col">{t('sequences.dgiiAnswer')}</th>
              {manage ? <th scope="col">{t('common.actions')}</th> : null}
            </tr>
          </thead>
          <tbody>
            {annulments.map((annulment) => (
              <tr key={annulment.id}>
                <td>{gmt4Time(annulment.createdAt)}</td>
                <td>
                  <ul class="plain">
                    {annulment.spans.map((span) => (
                      <li key={span.from}>
                        {span.ecfType} · <code>{span.from}</code> – <code>{span.to}</code> ({count(span.count)},{' '}
                        {t(`sequences.kind.${span.kind}`)})
                      </li>
                    ))}
                  </ul>
                </td>
                <td class="amount">{count(annulment.total)}</td>
                <td>
                  <Status group="annulment" value={annulment.status} />
                </td>
                <td class="amount">{annulment.attempts}</td>
                <td class="wrap">
                  {annulment.dgii.estado ?? '—'}
                  {annulment.dgii.mensajes.length > 0 ? (
                    <ul class="plain subtle">
                      {annulment.dgii.mensajes.map((message, i) => (
                        <li key={i}>
                          {message.codigo === null ? null : <code>{message.codigo}</code>} {message.valor}
                        </li>
                      ))}
                    </ul>
                  ) : null}
                </td>
                {manage ? (
                  <td>
                    {annulment.status === 'failed' ? (
                      <button
                        type="button"
                        aria-label={t('sequences.retryLabel', { id: annulment.id })}
                        disabled={action.busy !== undefined}
                        onClick={() => void retry(annulment.id)}
                      >
                        {t('sequences.retry')}
                      </button>
                    ) : null}
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Allocations({ allocations }: { allocations: Allocation[] }) {
  const { t } = useI18n();
  return (
    <section>
      <h2>{t('sequences.allocations')}</h2>
      {allocations.length === 0 ? (
        <p class="empty">{t('sequences.noAllocations')}</p>
      ) : (
        <table class="list">
          <caption class="visually-hidden">{t('sequences.allocations')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('sequences.device')}</th>
              <th scope="col">{t('documents.type')}</th>
              <th scope="col">{t('common.numbers')}</th>
              <th scope="col" class="amount">
                {t('sequences.count')}
              </th>
              <th scope="col" class="amount">
                {t('sequences.used')}
              </th>
              <th scope="col" class="amount">
                {t('sequences.remaining')}
              </th>
              <th scope="col" class="amount">
                {t('sequences.burned')}
              </th>
              <th scope="col">{t('sequences.expires')}</th>
              <th scope="col">{t('sequences.status')}</th>
              <th scope="col">{t('common.created')}</th>
            </tr>
          </thead>
          <tbody>
            {allocations.map((allocation) => (
              <tr key={allocation.id}>
                <td>
                  <code>{allocation.deviceId}</code>
                </td>
                <TypeCell ecfType={allocation.ecfType} />
                <td>
                  <code>{allocation.from}</code> – <code>{allocation.to}</code>
                </td>
                <td class="amount">{count(allocation.count)}</td>
                <td class="amount">{count(allocation.used)}</td>
                <td class="amount">{count(allocation.remaining)}</td>
                <td class="amount">{count(allocation.burned)}</td>
                <td>{allocation.expiresAt === null ? t('sequences.noExpiry') : gmt4Time(allocation.expiresAt)}</td>
                <td>
                  <Status group="allocation" value={allocation.status} />
                </td>
                <td>{gmt4Time(allocation.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
