// The counterpart approving (or rejecting) commercially an e-CF it received as buyer, and sending the ACECF to the
// issuer's receiver (DT simulator "Emisión: Aprobación Comercial"; research/dgii-protocol.md §6.3, §6.4). The e-CF
// is looked up in DGII's documents: FechaEmision and MontoTotal must be the e-CF's own, and DGII takes approvals
// only for e-CFs it accepted.
import { formatDgiiTimestamp } from '../../fiscal/dates.js';
import { buildAcecf, type Acecf } from '../../fiscal/responses/acecf.js';
import { takesCommercialApproval } from '../../fiscal/responses/acecf-read.js';
import { signCanonicalDocument } from '../../fiscal/xmldsig/index.js';
import type { SandboxContext } from '../http/context.js';
import type { SandboxEnvironment } from '../state/schema.js';
import { authenticateAt, endpointUrl, postXml, standardPaths } from './counterpart-outbound.js';

export interface ApprovalRequest {
  rnc: string;
  encf: string;
  estado: '1' | '2';
  approvalBase: URL;
  authenticationBase: URL | undefined;
}

export type ApprovalState = 'accepted' | 'refused' | 'no_answer' | 'auth_failed';

export type ApprovalSent =
  | { ok: true; xml: string; state: ApprovalState; httpStatus: number | null; messages: string[] }
  | { ok: false; mensaje: string };

/** Said in every rejection the counterpart sends (DetalleMotivoRechazo is required with Estado 2). */
const rejectionReason = 'Rechazo comercial simulado por el emisor-receptor de prueba.';

async function approvalFor(
  context: SandboxContext,
  environment: SandboxEnvironment,
  request: ApprovalRequest,
): Promise<{ ok: true; approval: Acecf } | { ok: false; mensaje: string }> {
  if (!takesCommercialApproval(request.encf))
    return { ok: false, mensaje: 'Aprobación Comercial no es requerida para este tipo de e-CF.' };
  const ecf = await context.db
    .selectFrom('sandbox_documents')
    .select(['rnc_comprador', 'fecha_emision', 'monto_total'])
    .where('environment', '=', environment)
    .where('channel', '=', 'ecf')
    .where('rnc_emisor', '=', request.rnc)
    .where('encf', '=', request.encf)
    .where('outcome', 'in', [1, 4])
    .executeTakeFirst();
  if (ecf?.fecha_emision == null || ecf.monto_total === null)
    return { ok: false, mensaje: `No se encuentra un e-CF válido ${request.encf} del emisor ${request.rnc}.` };
  if (ecf.rnc_comprador !== context.counterpart.rnc)
    return { ok: false, mensaje: `El e-CF ${request.encf} no fue emitido al RNC ${context.counterpart.rnc}.` };
  const base = {
    RNCEmisor: request.rnc,
    eNCF: request.encf,
    FechaEmision: ecf.fecha_emision,
    MontoTotal: ecf.monto_total,
    RNCComprador: context.counterpart.rnc,
    FechaHoraAprobacionComercial: formatDgiiTimestamp(context.clock.now()),
  };
  return {
    ok: true,
    approval:
      request.estado === '1'
        ? { ...base, Estado: '1' }
        : { ...base, Estado: '2', DetalleMotivoRechazo: rejectionReason },
  };
}

export async function sendApproval(
  context: SandboxContext,
  environment: SandboxEnvironment,
  request: ApprovalRequest,
): Promise<ApprovalSent> {
  const found = await approvalFor(context, environment, request);
  if (!found.ok) return found;
  const built = buildAcecf(found.approval);
  if (!built.ok)
    return { ok: false, mensaje: `El e-CF ${request.encf} no permite construir una aprobación comercial válida.` };
  const xml = signCanonicalDocument(built.xml, context.counterpart.key);
  const targetUrl = endpointUrl(request.approvalBase, standardPaths.aprobacionComercial);
  const sentAt = context.clock.now();
  const finish = async (
    state: ApprovalState,
    messages: string[],
    httpStatus: number | null = null,
  ): Promise<ApprovalSent> => {
    await context.db
      .insertInto('sandbox_exchanges')
      .values({
        environment,
        kind: 'acecf',
        rnc: context.counterpart.rnc,
        encf: request.encf,
        target_url: targetUrl,
        sent_at: sentAt,
        http_status: httpStatus,
        response_xml: null,
        state,
        messages: JSON.stringify(messages),
      })
      .execute();
    return { ok: true, xml, state, httpStatus, messages };
  };
  const session = await authenticateAt(context, request.authenticationBase);
  if (!session.ok) return finish('auth_failed', [session.message]);
  // DT: the file is named RNCComprador + eNCF.
  const sent = await postXml(context, targetUrl, xml, `${context.counterpart.rnc}${request.encf}.xml`, session.token);
  if (!sent.ok) return finish('no_answer', [sent.message]);
  // The standard: HTTP 200 when the receiver is satisfied, 400 when not (with its reason in the body).
  const answer = sent.body.trim() === '' ? [] : [sent.body.slice(0, 500)];
  if (sent.status === 200)
    return finish('accepted', ['Aprobación comercial recibida (HTTP 200).', ...answer], sent.status);
  return finish('refused', [`Aprobación comercial no recibida (HTTP ${String(sent.status)}).`, ...answer], sent.status);
}
