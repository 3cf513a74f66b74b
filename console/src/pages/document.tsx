// One document: where it stands with DGII and with its buyer, its printed representation shown in the page, the
// signed XML and the PDF to download, its timeline, and what may be done next (as the key's scopes allow).
import { useState } from 'preact/hooks';
import { ok, type components, type EcfClient, type EcfProblem } from '../../../sdk/src/index.js';
import { asProblem, download, fetchBlob, useBlobUrl, useFollow, useLoad } from '../api.js';
import { dop, gmt4Time } from '../format.js';
import { useI18n } from '../i18n.js';
import type { MessageKey } from '../messages.js';
import { PdfFrame } from '../parts/pdf-frame.js';
import { ProblemBox } from '../parts/problem.js';
import { Status } from '../parts/status.js';
import { useSession } from '../session.js';
import { Loading } from '../parts/loading.js';

type DocumentView = components['schemas']['DocumentView'];

const inFlight = new Set(['queued', 'sending', 'in_process']);

const pdfOf = (client: EcfClient, id: string) =>
  fetchBlob(
    client.GET('/api/v1/documentos/{id}/impresion', {
      params: { path: { id } },
      headers: { accept: 'application/pdf' },
      parseAs: 'blob',
    }),
  );

export function DocumentPage({ id }: { id: string }) {
  const { t } = useI18n();
  const { client } = useSession();
  const loaded = useLoad(async () => {
    const [view, timeline] = await Promise.all([
      ok(client.GET('/api/v1/documentos/{id}', { params: { path: { id } } })),
      ok(client.GET('/api/v1/documentos/{id}/cronologia', { params: { path: { id } } })),
    ]);
    return { document: view.data, events: timeline.data.events };
  }, [id]);

  // While DGII or the buyer's delivery is on its way, the page follows it.
  const moving =
    loaded.state === 'ok' &&
    (inFlight.has(loaded.data.document.status) || loaded.data.document.entrega?.status === 'pending');
  useFollow(moving, loaded.reload);

  if (loaded.state === 'loading') return <Loading />;
  if (loaded.state === 'failed')
    return (
      <section>
        <h1>{t('document.title')}</h1>
        <ProblemBox problem={loaded.problem} />
      </section>
    );
  const { document, events } = loaded.data;
  return (
    <section class="document">
      <h1>
        {document.eNCF} <Status value={document.status} />
      </h1>
      <Actions document={document} onDone={loaded.reload} />
      <div class="document-columns">
        <div>
          <Summary document={document} />
          <Dgii document={document} />
          <Delivery document={document} />
          <section>
            <h2>{t('document.timeline')}</h2>
            <ol class="timeline">
              {events.map((event, i) => (
                <li key={i}>
                  <time dateTime={event.at}>{gmt4Time(event.at)}</time> <strong>{event.type}</strong>
                  {event.status === null ? null : (
                    <>
                      {' '}
                      → <Status value={event.status} />
                    </>
                  )}
                  <div class="cause">{event.cause}</div>
                </li>
              ))}
            </ol>
          </section>
        </div>
        <Printed document={document} />
      </div>
    </section>
  );
}

function Summary({ document }: { document: DocumentView }) {
  const { t } = useI18n();
  const rows: [MessageKey, string][] = [
    ['documents.type', `${document.ecfType} · ${t(`ecfType.${document.ecfType}` as MessageKey)}`],
    ['documents.issued', document.fechaEmision],
    ['documents.buyer', document.rncComprador ?? '—'],
    ['documents.total', dop(document.montoTotal)],
    ['document.itbis', dop(document.totalITBIS)],
    ['document.securityCode', document.securityCode],
    ['document.signedAt', document.fechaHoraFirma],
    ['documents.created', gmt4Time(document.createdAt)],
  ];
  return (
    <section>
      <h2>{t('document.summary')}</h2>
      <dl class="facts">
        {rows.map(([label, value]) => (
          <div key={label}>
            <dt>{t(label)}</dt>
            <dd>{value}</dd>
          </div>
        ))}
        <div>
          <dt>{t('document.consult')}</dt>
          <dd>
            <a href={document.timbreUrl} rel="noopener noreferrer" target="_blank">
              {t('document.consultLink')}
            </a>
          </dd>
        </div>
      </dl>
      {document.warnings.length > 0 ? (
        <ul class="warnings">
          {document.warnings.map((warning, i) => (
            <li key={i}>{warning.detail}</li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function Dgii({ document }: { document: DocumentView }) {
  const { t } = useI18n();
  const dgii = document.dgii;
  return (
    <section>
      <h2>{t('document.dgii')}</h2>
      {dgii === null ? (
        <p>{t('document.notSent')}</p>
      ) : (
        <>
          <dl class="facts">
            <div>
              <dt>{t('document.dgiiEstado')}</dt>
              <dd>{dgii.estado ?? '—'}</dd>
            </div>
            <div>
              <dt>trackId</dt>
              <dd>
                <code>{dgii.trackId ?? '—'}</code>
              </dd>
            </div>
            <div>
              <dt>{t('document.attempts')}</dt>
              <dd>{dgii.attempts}</dd>
            </div>
            <div>
              <dt>{t('document.sentAt')}</dt>
              <dd>{gmt4Time(dgii.sentAt)}</dd>
            </div>
          </dl>
          {dgii.mensajes.length > 0 ? (
            <ul class="dgii-messages">
              {dgii.mensajes.map((message, i) => (
                <li key={i}>
                  {message.codigo === null ? null : <code>{message.codigo}</code>} {message.valor}
                </li>
              ))}
            </ul>
          ) : null}
        </>
      )}
    </section>
  );
}

function Delivery({ document }: { document: DocumentView }) {
  const { t } = useI18n();
  const entrega = document.entrega;
  return (
    <section>
      <h2>{t('document.delivery')}</h2>
      {entrega === null ? (
        <p>{t('document.noDeliveryYet')}</p>
      ) : (
        <dl class="facts">
          <div>
            <dt>{t('documents.status')}</dt>
            <dd>
              <Status group="delivery" value={entrega.status} />
            </dd>
          </div>
          <div>
            <dt>{t('document.channel')}</dt>
            <dd>{entrega.canal === null ? '—' : t(`channel.${entrega.canal}` as MessageKey)}</dd>
          </div>
          <div>
            <dt>{t('document.destination')}</dt>
            <dd>{entrega.destino ?? '—'}</dd>
          </div>
          <div>
            <dt>{t('document.attempts')}</dt>
            <dd>{entrega.attempts}</dd>
          </div>
          {entrega.acuseRecibo === null ? null : (
            <div>
              <dt>ARECF</dt>
              <dd>
                {t(entrega.acuseRecibo.estado === '0' ? 'document.arecfReceived' : 'document.arecfNotReceived')}
                {entrega.acuseRecibo.codigoMotivoNoRecibido === null
                  ? ''
                  : ` (${entrega.acuseRecibo.codigoMotivoNoRecibido})`}{' '}
                {entrega.acuseRecibo.fechaHoraAcuseRecibo ?? ''}
              </dd>
            </div>
          )}
          {entrega.messageId === null ? null : (
            <div>
              <dt>Message-ID</dt>
              <dd>
                <code>{entrega.messageId}</code>
              </dd>
            </div>
          )}
          {(entrega.lastError ?? entrega.reason) === null ? null : (
            <div>
              <dt>{t('document.why')}</dt>
              <dd>{entrega.lastError ?? entrega.reason}</dd>
            </div>
          )}
        </dl>
      )}
    </section>
  );
}

/** The PDF, fetched with the key and shown from a blob: URL (the key never rides in a URL). */
function Printed({ document }: { document: DocumentView }) {
  const { t } = useI18n();
  const { client } = useSession();
  const pdf = useBlobUrl(() => pdfOf(client, document.id), [client, document.id]);
  const [problem, setProblem] = useState<EcfProblem | undefined>(undefined);
  const signedXml = async () => {
    try {
      const blob = await fetchBlob(
        client.GET('/api/v1/documentos/{id}/artefactos/{type}', {
          params: { path: { id: document.id, type: 'signed-xml' } },
          parseAs: 'blob',
        }),
      );
      download(blob, `${document.eNCF}.xml`);
    } catch (error) {
      setProblem(asProblem(error));
    }
  };
  return (
    <section class="printed">
      <h2>{t('document.printed')}</h2>
      <div class="downloads">
        <button type="button" onClick={() => void signedXml()}>
          {t('document.downloadXml')}
        </button>
        <button
          type="button"
          disabled={pdf.state !== 'ok'}
          onClick={() => {
            if (pdf.state === 'ok') download(pdf.blob, `${document.eNCF}.pdf`);
          }}
        >
          {t('document.downloadPdf')}
        </button>
      </div>
      {problem === undefined ? null : <ProblemBox problem={problem} />}
      <PdfFrame pdf={pdf} encf={document.eNCF} />
    </section>
  );
}

type Action = 'enviar' | 'actualizar-estado' | 'reintentar' | 'entregar';

const actionsFor = (status: string): Action[] => {
  if (status === 'signed') return ['enviar'];
  if (status === 'queued' || status === 'sending' || status === 'in_process') return ['actualizar-estado'];
  if (status === 'send_failed' || status === 'not_found') return ['reintentar', 'actualizar-estado'];
  if (status === 'accepted' || status === 'accepted_conditional') return ['entregar'];
  return [];
};

function Actions({ document, onDone }: { document: DocumentView; onDone: () => void }) {
  const { t } = useI18n();
  const { client, can } = useSession();
  const [busy, setBusy] = useState<Action | undefined>(undefined);
  const [said, setSaid] = useState<string | undefined>(undefined);
  const [problem, setProblem] = useState<EcfProblem | undefined>(undefined);
  if (!can('documents:send')) return null;
  const actions = actionsFor(document.status);
  if (actions.length === 0) return null;
  const run = async (action: Action) => {
    setBusy(action);
    setSaid(undefined);
    setProblem(undefined);
    try {
      const params = { params: { path: { id: document.id } } };
      const answer =
        action === 'enviar'
          ? await ok(client.POST('/api/v1/documentos/{id}/enviar', params))
          : action === 'actualizar-estado'
            ? await ok(client.POST('/api/v1/documentos/{id}/actualizar-estado', params))
            : action === 'reintentar'
              ? await ok(client.POST('/api/v1/documentos/{id}/reintentar', params))
              : await ok(client.POST('/api/v1/documentos/{id}/entregar', { ...params, body: {} }));
      setSaid(
        'detail' in answer.data && typeof answer.data.detail === 'string' ? answer.data.detail : t('document.queued'),
      );
      onDone();
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(undefined);
    }
  };
  return (
    <div class="actions">
      {actions.map((action) => (
        <button key={action} type="button" disabled={busy !== undefined} onClick={() => void run(action)}>
          {t(`action.${action}` as MessageKey)}
        </button>
      ))}
      {said === undefined ? null : (
        <p role="status" class="said">
          {said}
        </p>
      )}
      {problem === undefined ? null : <ProblemBox problem={problem} />}
    </div>
  );
}
