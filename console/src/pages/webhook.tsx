// One webhook endpoint: what it gets and how it stands, its deliveries with every attempt (each re-sent from here),
// a test delivery, disabling and enabling, and rotating its secret. The new secret is shown once, from the
// rotation's answer, held in this page's state only: a reload or leaving the page forgets it. While a delivery is
// pending the page follows it.
import { useState } from 'preact/hooks';
import { ok, type components } from '../../../sdk/src/index.js';
import { useAction, useFollow, useLoad, type Action } from '../api.js';
import { gmt4Time } from '../format.js';
import { useI18n } from '../i18n.js';
import { Link } from '../parts/link.js';
import { Outcome } from '../parts/outcome.js';
import { Paging } from '../parts/paging.js';
import { ProblemBox } from '../parts/problem.js';
import { Status } from '../parts/status.js';
import { WhenLoaded } from '../parts/when-loaded.js';
import { useLocation } from '../router.js';
import { useSession } from '../session.js';
import { EventList, SecretOnce } from './webhooks.js';

type Endpoint = components['schemas']['WebhookEndpoint'];
type Delivery = components['schemas']['WebhookDelivery'];

export function WebhookPage({ id }: { id: string }) {
  const { t } = useI18n();
  const { client } = useSession();
  const { query } = useLocation();
  const cursor = query.get('cursor') ?? undefined;
  const [secret, setSecret] = useState<string | undefined>(undefined);
  const loaded = useLoad(async () => {
    const [endpoint, deliveries] = await Promise.all([
      ok(client.GET('/api/v1/notificaciones/{id}', { params: { path: { id } } })),
      ok(client.GET('/api/v1/notificaciones/entregas', { params: { query: { endpointId: id, cursor, limit: 50 } } })),
    ]);
    return { endpoint: endpoint.data, deliveries };
  }, [id, cursor]);
  useFollow(
    loaded.state === 'ok' && loaded.data.deliveries.data.some((delivery) => delivery.status === 'pending'),
    loaded.reload,
  );

  if (loaded.state === 'failed')
    return (
      <section>
        <Back />
        <h1>{t('webhooks.title')}</h1>
        <ProblemBox problem={loaded.problem} />
      </section>
    );
  return (
    <section>
      <Back />
      <WhenLoaded loaded={loaded}>
        {({ endpoint, deliveries }) => (
          <>
            <h1>
              <span class="url">{endpoint.url}</span> <Status group="endpoint" value={endpoint.state} />
            </h1>
            <Facts endpoint={endpoint} />
            <Actions endpoint={endpoint} onDone={loaded.reload} onRotated={setSecret} />
            {secret === undefined ? null : <SecretOnce url={endpoint.url} secret={secret} />}
            <Deliveries deliveries={deliveries.data} onResent={loaded.reload} />
            <Paging to={`/notificaciones/${id}`} query={query} nextCursor={deliveries.meta.nextCursor} />
          </>
        )}
      </WhenLoaded>
    </section>
  );
}

function Back() {
  const { t } = useI18n();
  return (
    <p class="back">
      <Link to="/notificaciones">{t('webhooks.back')}</Link>
    </p>
  );
}

function Facts({ endpoint }: { endpoint: Endpoint }) {
  const { t } = useI18n();
  return (
    <dl class="facts">
      <div>
        <dt>{t('webhooks.description')}</dt>
        <dd>{endpoint.description ?? '—'}</dd>
      </div>
      <div>
        <dt>{t('webhooks.events')}</dt>
        <dd>
          <EventList events={endpoint.events} />
        </dd>
      </div>
      {endpoint.disabledReason === null ? null : (
        <div>
          <dt>{t('webhooks.disabledReason')}</dt>
          <dd>{endpoint.disabledReason}</dd>
        </div>
      )}
      <div>
        <dt>{t('webhooks.failingSince')}</dt>
        <dd>{gmt4Time(endpoint.failingSince)}</dd>
      </div>
      {endpoint.previousSecretValidUntil === null ? null : (
        <div>
          <dt>{t('webhooks.previousSecret')}</dt>
          <dd>{gmt4Time(endpoint.previousSecretValidUntil)}</dd>
        </div>
      )}
      <div>
        <dt>{t('common.created')}</dt>
        <dd>{gmt4Time(endpoint.createdAt)}</dd>
      </div>
      <div>
        <dt>{t('webhooks.updated')}</dt>
        <dd>{gmt4Time(endpoint.updatedAt)}</dd>
      </div>
    </dl>
  );
}

function Actions(props: { endpoint: Endpoint; onDone: () => void; onRotated: (secret: string) => void }) {
  const { t } = useI18n();
  const { client } = useSession();
  const action = useAction();
  const [confirming, setConfirming] = useState(false);
  const path = { params: { path: { id: props.endpoint.id } } };
  const enabled = props.endpoint.state === 'enabled';
  const sendTest = () =>
    action.run('test', async () => {
      await ok(client.POST('/api/v1/notificaciones/{id}/prueba', path));
      props.onDone();
      return t('webhooks.testSent');
    });
  const toggle = () =>
    action.run('state', async () => {
      await ok(
        client.PATCH('/api/v1/notificaciones/{id}', { ...path, body: { state: enabled ? 'disabled' : 'enabled' } }),
      );
      props.onDone();
      return undefined;
    });
  const rotate = () =>
    action.run('rotate', async () => {
      const { data } = await ok(client.POST('/api/v1/notificaciones/{id}/rotar-secreto', path));
      setConfirming(false);
      props.onRotated(data.secret);
      props.onDone();
      // The secret shown is what says it was done.
      return undefined;
    });
  return (
    <>
      <div class="actions">
        <button type="button" disabled={action.busy !== undefined || !enabled} onClick={() => void sendTest()}>
          {t('webhooks.sendTest')}
        </button>
        <button type="button" class="secondary" disabled={action.busy !== undefined} onClick={() => void toggle()}>
          {t(enabled ? 'webhooks.disable' : 'webhooks.enable')}
        </button>
        <button
          type="button"
          class="secondary"
          aria-expanded={confirming}
          disabled={action.busy !== undefined}
          onClick={() => {
            setConfirming(!confirming);
          }}
        >
          {t('webhooks.rotate')}
        </button>
      </div>
      {confirming ? (
        <ConfirmRotation
          action={action}
          onConfirm={rotate}
          onCancel={() => {
            setConfirming(false);
          }}
        />
      ) : null}
      <Outcome action={action} />
    </>
  );
}

function ConfirmRotation(props: { action: Action; onConfirm: () => Promise<void>; onCancel: () => void }) {
  const { t } = useI18n();
  return (
    <div class="confirm">
      <p>{t('webhooks.rotateConfirm')}</p>
      <div class="actions">
        <button type="button" disabled={props.action.busy !== undefined} onClick={() => void props.onConfirm()}>
          {t('webhooks.rotateYes')}
        </button>
        <button type="button" class="secondary" onClick={props.onCancel}>
          {t('webhooks.cancel')}
        </button>
      </div>
    </div>
  );
}

function Deliveries({ deliveries, onResent }: { deliveries: Delivery[]; onResent: () => void }) {
  const { t } = useI18n();
  const { client } = useSession();
  const action = useAction();
  const resend = (deliveryId: string) =>
    action.run(deliveryId, async () => {
      await ok(
        client.POST('/api/v1/notificaciones/entregas/{deliveryId}/reenvios', { params: { path: { deliveryId } } }),
      );
      onResent();
      return t('common.taken');
    });
  return (
    <section>
      <h2>{t('webhooks.deliveries')}</h2>
      <Outcome action={action} />
      {deliveries.length === 0 ? (
        <p class="empty">{t('webhooks.noDeliveries')}</p>
      ) : (
        <table class="list">
          <caption class="visually-hidden">{t('webhooks.deliveries')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('common.created')}</th>
              <th scope="col">{t('webhooks.event')}</th>
              <th scope="col">{t('webhooks.state')}</th>
              <th scope="col">{t('webhooks.attempts')}</th>
              <th scope="col">{t('webhooks.nextAttempt')}</th>
              <th scope="col">{t('webhooks.lastError')}</th>
              <th scope="col">{t('common.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((delivery) => (
              <tr key={delivery.deliveryId}>
                <td>{gmt4Time(delivery.createdAt)}</td>
                <td>
                  <code>{delivery.eventType}</code>
                </td>
                <td>
                  <Status group="webhookDelivery" value={delivery.status} />
                </td>
                <td>
                  <Attempts delivery={delivery} />
                </td>
                <td>{gmt4Time(delivery.nextAttemptAt)}</td>
                <td class="wrap">{delivery.lastError ?? '—'}</td>
                <td>
                  <button
                    type="button"
                    class="secondary"
                    aria-label={t('webhooks.resendLabel', { id: delivery.deliveryId })}
                    disabled={action.busy !== undefined}
                    onClick={() => void resend(delivery.deliveryId)}
                  >
                    {t('webhooks.resend')}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Attempts({ delivery }: { delivery: Delivery }) {
  const { t } = useI18n();
  const label = t('webhooks.attemptsOf', { count: delivery.attemptCount });
  if (delivery.attempts.length === 0) return <>{label}</>;
  return (
    <details class="attempts">
      <summary>{label}</summary>
      <ol>
        {delivery.attempts.map((attempt, i) => (
          <li key={i}>
            <time dateTime={attempt.at}>{gmt4Time(attempt.at)}</time> ·{' '}
            {attempt.statusCode === null ? t('webhooks.noAnswer') : `HTTP ${String(attempt.statusCode)}`} ·{' '}
            {attempt.durationMs} ms
            {attempt.error === null ? null : <div class="cause">{attempt.error}</div>}
          </li>
        ))}
      </ol>
    </details>
  );
}
