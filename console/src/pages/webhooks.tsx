// The company's webhook endpoints and a form for a new one (its URL and the events it gets, from the API's list of
// event types). A new endpoint's signing secret is shown once, from the answer that created it: kept in this page's
// state only, never stored, gone when the page is left.
import { useState } from 'preact/hooks';
import { ok } from '../../../sdk/src/index.js';
import { useAction, useLoad } from '../api.js';
import { gmt4Time } from '../format.js';
import { useI18n } from '../i18n.js';
import { Link } from '../parts/link.js';
import { Outcome } from '../parts/outcome.js';
import { Paging } from '../parts/paging.js';
import { Status } from '../parts/status.js';
import { WhenLoaded } from '../parts/when-loaded.js';
import { useLocation } from '../router.js';
import { useSession } from '../session.js';

export function WebhooksPage() {
  const { t } = useI18n();
  const { client } = useSession();
  const { query } = useLocation();
  const cursor = query.get('cursor') ?? undefined;
  const [created, setCreated] = useState<{ url: string; secret: string } | undefined>(undefined);
  const loaded = useLoad(async () => {
    const [endpoints, eventTypes] = await Promise.all([
      ok(client.GET('/api/v1/notificaciones', { params: { query: { cursor, limit: 50 } } })),
      ok(client.GET('/api/v1/notificaciones/tipos-evento')),
    ]);
    return { endpoints, eventTypes: eventTypes.data };
  }, [cursor]);

  return (
    <section>
      <h1>{t('webhooks.title')}</h1>
      <p class="hint">{t('webhooks.intro')}</p>
      {created === undefined ? null : <SecretOnce url={created.url} secret={created.secret} />}
      <WhenLoaded loaded={loaded}>
        {({ endpoints, eventTypes }) => (
          <>
            <h2>{t('webhooks.endpoints')}</h2>
            {endpoints.data.length === 0 ? (
              <p class="empty">{t('webhooks.none')}</p>
            ) : (
              <table class="list">
                <caption class="visually-hidden">{t('webhooks.endpoints')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('webhooks.url')}</th>
                    <th scope="col">{t('webhooks.description')}</th>
                    <th scope="col">{t('webhooks.events')}</th>
                    <th scope="col">{t('webhooks.state')}</th>
                    <th scope="col">{t('webhooks.failingSince')}</th>
                    <th scope="col">{t('common.created')}</th>
                  </tr>
                </thead>
                <tbody>
                  {endpoints.data.map((endpoint) => (
                    <tr key={endpoint.id}>
                      <td class="wrap">
                        <Link to={`/notificaciones/${endpoint.id}`}>{endpoint.url}</Link>
                      </td>
                      <td class="wrap">{endpoint.description ?? '—'}</td>
                      <td class="wrap">
                        <EventList events={endpoint.events} />
                      </td>
                      <td>
                        <Status group="endpoint" value={endpoint.state} />
                      </td>
                      <td>{gmt4Time(endpoint.failingSince)}</td>
                      <td>{gmt4Time(endpoint.createdAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <Paging to="/notificaciones" query={query} nextCursor={endpoints.meta.nextCursor} />
            <NewEndpoint
              eventTypes={eventTypes}
              onCreated={(endpoint) => {
                setCreated(endpoint);
                loaded.reload();
              }}
            />
          </>
        )}
      </WhenLoaded>
    </section>
  );
}

export function EventList({ events }: { events: string[] | null }) {
  const { t } = useI18n();
  if (events === null) return <>{t('webhooks.allEvents')}</>;
  return (
    <ul class="plain">
      {events.map((event) => (
        <li key={event}>
          <code>{event}</code>
        </li>
      ))}
    </ul>
  );
}

/** A signing secret from the answer that made it: the one time it can be read. */
export function SecretOnce({ url, secret }: { url: string; secret: string }) {
  const { t } = useI18n();
  return (
    <div class="secret" role="status">
      <p>
        <strong>{t('webhooks.secretFor', { url })}</strong>
      </p>
      <p>{t('webhooks.secretOnce')}</p>
      <label for="webhook-secret">{t('webhooks.secret')}</label>
      <input
        id="webhook-secret"
        class="secret-value"
        readOnly
        value={secret}
        onFocus={(event) => {
          event.currentTarget.select();
        }}
      />
    </div>
  );
}

function NewEndpoint(props: {
  eventTypes: { type: string; description: string }[];
  onCreated: (endpoint: { url: string; secret: string }) => void;
}) {
  const { t } = useI18n();
  const { client } = useSession();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<ReadonlySet<string>>(new Set());
  const action = useAction();
  const create = () =>
    action.run('create', async () => {
      const { data } = await ok(
        client.POST('/api/v1/notificaciones', {
          body: {
            url: url.trim(),
            events: events.size === 0 ? null : [...events],
            ...(description.trim() === '' ? {} : { description: description.trim() }),
          },
        }),
      );
      setUrl('');
      setDescription('');
      setEvents(new Set());
      props.onCreated({ url: data.url, secret: data.secret });
      return undefined;
    });
  return (
    <form
      class="form"
      onSubmit={(event) => {
        event.preventDefault();
        void create();
      }}
    >
      <h2>{t('webhooks.new')}</h2>
      <div class="field">
        <label for="webhook-url">{t('webhooks.url')}</label>
        <input
          id="webhook-url"
          type="url"
          required
          size={60}
          value={url}
          onInput={(event) => {
            setUrl(event.currentTarget.value);
          }}
        />
      </div>
      <div class="field">
        <label for="webhook-description">{t('webhooks.description')}</label>
        <input
          id="webhook-description"
          size={60}
          maxLength={500}
          value={description}
          onInput={(event) => {
            setDescription(event.currentTarget.value);
          }}
        />
      </div>
      <fieldset class="choices">
        <legend>{t('webhooks.events')}</legend>
        <p class="hint">{t('webhooks.eventsHint')}</p>
        {props.eventTypes.map((eventType) => (
          <label key={eventType.type} class="choice">
            <input
              type="checkbox"
              checked={events.has(eventType.type)}
              onChange={(event) => {
                const next = new Set(events);
                if (event.currentTarget.checked) next.add(eventType.type);
                else next.delete(eventType.type);
                setEvents(next);
              }}
            />{' '}
            <code>{eventType.type}</code> <span class="subtle">{eventType.description}</span>
          </label>
        ))}
      </fieldset>
      <div>
        <button type="submit" disabled={action.busy !== undefined}>
          {t('webhooks.create')}
        </button>
      </div>
      <Outcome action={action} />
    </form>
  );
}
