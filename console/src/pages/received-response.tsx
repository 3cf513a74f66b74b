// A received e-CF's commercial response (ACECF): the decision to approve it, or to reject it with a reason
// (DetalleMotivoRechazo), offered to a key that may send; then the decision made and the ACECF's deliveries to the
// issuer's receiver and to DGII, each with its state, attempts and last error.
import { useRef, useState } from 'preact/hooks';
import { ok, type components, type EcfProblem } from '../../../sdk/src/index.js';
import { asProblem } from '../api.js';
import { gmt4Time } from '../format.js';
import { useI18n } from '../i18n.js';
import type { MessageKey } from '../messages.js';
import { ProblemBox } from '../parts/problem.js';
import { Status } from '../parts/status.js';
import { useSession } from '../session.js';
import { Loading } from '../parts/loading.js';

export type ReceivedView = components['schemas']['ReceivedWithResponseView'];

type ResponseView = components['schemas']['CommercialResponseView'];
type Delivery = components['schemas']['ResponseDeliveryView'];
type Decision = ResponseView['decision'];

/** DetalleMotivoRechazo's limit (Formato Aprobación Comercial v1.0); the API judges it, the page counts. */
const maxReason = 250;
/** Types DGII takes no commercial approval for (the API answers 422 acecf_not_applicable). */
const typesWithoutApproval = new Set(['32', '41', '43', '46', '47']);

export function CommercialResponse({ document, onDone }: { document: ReceivedView; onDone: () => void }) {
  const { t } = useI18n();
  const { can } = useSession();
  // The response the POST answered, shown until the page's next load has it.
  const [made, setMade] = useState<ResponseView | null>(null);
  if (document.status !== 'received') return null;
  const response = document.commercialResponse ?? made;
  const applies = document.ecfType === null || !typesWithoutApproval.has(document.ecfType);
  return (
    <section class="commercial-response">
      <h2>{t('received.commercial')}</h2>
      {response !== null ? (
        <Made response={response} />
      ) : !applies ? (
        <p>{t('receivedDocument.noResponseNeeded')}</p>
      ) : can('documents:send') ? (
        <Decide
          document={document}
          onMade={(next) => {
            setMade(next);
            onDone();
          }}
        />
      ) : (
        <p>{t('receivedDocument.notRespondedYet')}</p>
      )}
    </section>
  );
}

function Decide({ document, onMade }: { document: ReceivedView; onMade: (response: ResponseView | null) => void }) {
  const { t } = useI18n();
  const { client } = useSession();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState<Decision | undefined>(undefined);
  const [problem, setProblem] = useState<EcfProblem | undefined>(undefined);
  const [reasonError, setReasonError] = useState<string | undefined>(undefined);
  const [confirming, setConfirming] = useState(false);
  const reasonField = useRef<HTMLTextAreaElement>(null);

  const respond = async (decision: Decision) => {
    setConfirming(false);
    setProblem(undefined);
    setReasonError(undefined);
    if (decision === 'rejected' && reason.trim() === '') {
      setReasonError(t('receivedDocument.reasonRequired'));
      reasonField.current?.focus();
      return;
    }
    setBusy(decision);
    try {
      const { data } = await ok(
        client.POST('/api/v1/recibidos/{id}/respuesta-comercial', {
          params: { path: { id: document.id } },
          body: decision === 'approved' ? { decision } : { decision, reason },
        }),
      );
      onMade(data.commercialResponse);
    } catch (error) {
      const refused = asProblem(error);
      setProblem(refused);
      const atReason = refused.errors.find((field) => field.pointer === '/reason');
      if (atReason !== undefined) {
        setReasonError(atReason.detail);
        reasonField.current?.focus();
      }
    } finally {
      setBusy(undefined);
    }
  };

  const described = reasonError === undefined ? 'reject-reason-hint' : 'reject-reason-hint reject-reason-error';
  return (
    <div class="decide">
      <p>{t('receivedDocument.respondIntro')}</p>
      {/* An approval is signed and sent to DGII at once, and cannot be undone: it is asked twice. */}
      <div class="actions">
        {confirming ? (
          <>
            <button type="button" disabled={busy !== undefined} onClick={() => void respond('approved')}>
              {t('receivedDocument.confirmApproval')}
            </button>
            <button
              type="button"
              class="link-button"
              disabled={busy !== undefined}
              onClick={() => {
                setConfirming(false);
              }}
            >
              {t('receivedDocument.cancel')}
            </button>
          </>
        ) : (
          <button
            type="button"
            disabled={busy !== undefined}
            onClick={() => {
              setConfirming(true);
            }}
          >
            {t('receivedDocument.approve')}
          </button>
        )}
      </div>
      <form
        class="reject"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void respond('rejected');
        }}
      >
        <p>{t('receivedDocument.orReject')}</p>
        <div class="field">
          <label for="reject-reason">{t('receivedDocument.reason')}</label>
          <textarea
            id="reject-reason"
            ref={reasonField}
            rows={3}
            required
            aria-invalid={reasonError !== undefined}
            aria-describedby={described}
            value={reason}
            onInput={(event) => {
              setReason(event.currentTarget.value);
            }}
          />
          <p id="reject-reason-hint" class={reason.length > maxReason ? 'hint over' : 'hint'}>
            {t('receivedDocument.reasonHint', { max: maxReason, count: reason.length })}
          </p>
          {reasonError === undefined ? null : (
            <p id="reject-reason-error" class="field-error">
              {reasonError}
            </p>
          )}
        </div>
        <button type="submit" class="danger" disabled={busy !== undefined}>
          {t('receivedDocument.reject')}
        </button>
      </form>
      {busy === undefined ? null : <Loading />}
      {problem === undefined ? null : <ProblemBox problem={problem} />}
    </div>
  );
}

function Made({ response }: { response: ResponseView }) {
  const { t } = useI18n();
  return (
    <>
      <dl class="facts">
        <div>
          <dt>{t('receivedDocument.decision')}</dt>
          <dd>
            <Status group="commercial" value={response.decision} />
          </dd>
        </div>
        {response.reason === null ? null : (
          <div>
            <dt>{t('receivedDocument.reason')}</dt>
            <dd class="reason">{response.reason}</dd>
          </div>
        )}
        <div>
          <dt>{t('receivedDocument.respondedAt')}</dt>
          <dd>{response.fechaHoraAprobacionComercial}</dd>
        </div>
      </dl>
      <h3>{t('receivedDocument.deliveries')}</h3>
      <ul class="acecf-deliveries">
        {response.deliveries.map((delivery) => (
          <DeliveryItem key={delivery.target} delivery={delivery} />
        ))}
      </ul>
    </>
  );
}

function DeliveryItem({ delivery }: { delivery: Delivery }) {
  const { t } = useI18n();
  const answer = answerText(delivery.answer);
  return (
    <li class="acecf-delivery" data-target={delivery.target} data-status={delivery.status}>
      <p class="acecf-delivery-head">
        <strong>{t(`target.${delivery.target}` as MessageKey)}</strong>{' '}
        <Status group="acecfDelivery" value={delivery.status} />
      </p>
      <dl class="facts">
        <div>
          <dt>{t('document.attempts')}</dt>
          <dd>{delivery.attempts}</dd>
        </div>
        {delivery.deliveredAt === null ? null : (
          <div>
            <dt>{t('receivedDocument.deliveredAt')}</dt>
            <dd>{gmt4Time(delivery.deliveredAt)}</dd>
          </div>
        )}
        {delivery.nextAttemptAt === null ? null : (
          <div>
            <dt>{t('receivedDocument.nextAttempt')}</dt>
            <dd>{gmt4Time(delivery.nextAttemptAt)}</dd>
          </div>
        )}
        {delivery.url === null ? null : (
          <div>
            <dt>{t('document.destination')}</dt>
            <dd>
              <code>{delivery.url}</code>
            </dd>
          </div>
        )}
        {answer === undefined ? null : (
          <div>
            <dt>{t('receivedDocument.dgiiAnswer')}</dt>
            <dd>{answer}</dd>
          </div>
        )}
        {delivery.lastError === null ? null : (
          <div>
            <dt>{t('receivedDocument.lastError')}</dt>
            <dd>{delivery.lastError}</dd>
          </div>
        )}
      </dl>
    </li>
  );
}

/** What the other side answered last, e.g. `HTTP 200 · 01 · Aprobación Comercial Aprobada.`, with DGII's messages. */
function answerText(answer: Delivery['answer']): string | undefined {
  if (answer === null) return undefined;
  const text = (value: unknown): string => {
    if (typeof value === 'string' || typeof value === 'number') return String(value);
    if (typeof value !== 'object' || value === null) return '';
    // A DGII message: {codigo, valor}.
    const { codigo, valor } = value as Record<string, unknown>;
    return [text(codigo), text(valor)].filter((part) => part !== '').join(' ');
  };
  const messages: unknown[] = Array.isArray(answer['mensajes']) ? answer['mensajes'] : [];
  const parts = [
    answer['httpStatus'] === undefined ? '' : `HTTP ${text(answer['httpStatus'])}`,
    text(answer['codigo']),
    text(answer['estado']),
    ...messages.map(text),
  ].filter((part) => part !== '');
  return parts.length === 0 ? undefined : parts.join(' · ');
}
