// Step 3 and 4 of DGII's operating model (Informe Técnico §8, Figura I; research/dgii-protocol.md §6.1-§6.2): the
// signed e-CF, the exact archived bytes, to the buyer's receiver as multipart `xml` named RNCEmisor + eNCF + .xml,
// and the signed ARECF it must answer, judged (fiscal/responses/arecf-answer.ts) before it counts.
//
// A receiver offers no status query, so an attempt whose answer was lost is simply sent again; the receiver then
// answers Estado 1 with motivo 3 (Envío duplicado), which says it has the e-CF: the delivery is closed as received,
// with that ARECF kept and the reason written down (DESIGN §5.3).
import type { DirectoryEntry, ReceiverClient } from '../../dgii/index.js';
import { receiverPaths } from '../../dgii/index.js';
import { judgeArecfAnswer } from '../../fiscal/responses/arecf-answer.js';
import { notReceivedReasons } from '../../fiscal/responses/arecf.js';
import type { SchemaSet } from '../../fiscal/xsd/index.js';
import type { SigningKey } from '../../fiscal/xmldsig/index.js';
import { retryAfterMs } from '../../platform/http/retry-after.js';

/** What one attempt at a channel came to. */
export type ChannelResult =
  | {
      kind: 'delivered' | 'not_received';
      target: string;
      reason: string | null;
      arecf?: { estado: string; motivo: string | null; fechaHora: string; bytes: Buffer };
      messageId?: string;
    }
  /** No delivery this time; `final`: none will come of trying again (a permanent refusal). */
  | { kind: 'failed'; target: string | null; reason: string; retryAt?: Date; final?: boolean };

function excerpt(body: Buffer): string {
  return body.toString('utf8').replace(/\s+/g, ' ').trim().slice(0, 300);
}

export async function deliverToReceiver(
  deps: { receivers: ReceiverClient; schemas: SchemaSet | undefined; now: () => Date },
  input: {
    companyId: string;
    entry: DirectoryEntry;
    signedXml: Buffer;
    expected: { RNCEmisor: string; RNCComprador: string; eNCF: string };
    key: SigningKey;
  },
): Promise<ChannelResult> {
  const { entry, expected } = input;
  if (entry.urlRecepcion.trim() === '')
    return { kind: 'failed', target: null, reason: `DGII's directory gives ${entry.rnc} no reception URL` };
  const answer = await deps.receivers.post({
    companyId: input.companyId,
    serviceBase: entry.urlRecepcion,
    authenticationBase: entry.urlOpcional,
    path: receiverPaths.recepcion,
    // DT "Estándar de comunicación Emisor-Receptor": the file is named RNCEmisor + eNCF + .xml (research §9.4).
    file: { xml: input.signedXml, fileName: `${expected.RNCEmisor}${expected.eNCF}.xml` },
    key: input.key,
  });
  if (answer.kind === 'failed') return { kind: 'failed', target: answer.url, reason: answer.detail };
  const { url, status, body } = answer;
  if (status < 200 || status >= 300) {
    const after = retryAfterMs(
      typeof answer.headers['retry-after'] === 'string' ? answer.headers['retry-after'] : undefined,
      deps.now(),
    );
    return {
      kind: 'failed',
      target: url,
      reason: `the receiver answered HTTP ${String(status)} ${excerpt(body)}`.trim(),
      ...(after === undefined ? {} : { retryAt: new Date(deps.now().getTime() + after) }),
    };
  }
  const judged = judgeArecfAnswer(body, expected, deps.schemas);
  if (judged.kind === 'invalid')
    return { kind: 'failed', target: url, reason: `the receiver's answer is not a valid ARECF: ${judged.reason}` };
  const { arecf } = judged;
  const kept = {
    estado: arecf.Estado,
    motivo: arecf.Estado === '1' ? arecf.CodigoMotivoNoRecibido : null,
    fechaHora: arecf.FechaHoraAcuseRecibo,
    bytes: body,
  };
  if (arecf.Estado === '0') return { kind: 'delivered', target: url, reason: null, arecf: kept };
  const motivo = arecf.CodigoMotivoNoRecibido;
  if (motivo === '3')
    return {
      kind: 'delivered',
      target: url,
      reason:
        'the receiver already had it (ARECF Estado 1, motivo 3 "Envío duplicado"): an earlier attempt, or another sender, reached it',
      arecf: kept,
    };
  return {
    kind: 'not_received',
    target: url,
    reason: `the receiver did not receive it (ARECF Estado 1, motivo ${motivo} "${notReceivedReasons[motivo]}")`,
    arecf: kept,
  };
}
