// The buyer's copy of a commercial approval (ACECF) sent to DGII (aprobacioncomercial/api/aprobacioncomercial; DT
// "Recepción de aprobación comercial"; research/dgii-protocol.md §2, §6.3). DGII takes it only for an e-CF it has
// accepted, of a type that takes approvals, whose buyer, date and total the approval repeats.
//
// Answer `{mensaje: [strings], estado, codigo}`: "01" "Aprobación Comercial Aprobada." (HTTP 200) when DGII took it
// (whether the buyer accepted or rejected the e-CF: that is the document's Estado), "02" "Aprobacion Comercial
// Rechazada" (HTTP 400, DGII's own spelling as observed) with the reasons when it did not (research §2).
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  acecfDecision,
  acecfMismatches,
  readAcecf,
  takesCommercialApproval,
  type ReceivedAcecf,
} from '../../fiscal/responses/acecf-read.js';
import type { SandboxApp, SandboxContext } from '../http/context.js';
import { recordArrival } from '../http/arrivals.js';
import { unauthorized } from '../http/dgii-replies.js';
import { dgiiRoute } from '../http/sandbox-route.js';
import { sessionOf, type Session } from '../http/sessions.js';
import type { SandboxEnvironment } from '../state/schema.js';
import { sendDgiiReply } from '../http/reply-format.js';
import { actsFor, readSignedUpload } from './signed-upload.js';
import { approvalStageVerdict } from '../certification/approval-tests.js';
import { groupsOf, textOf, type XmlTree } from '../../fiscal/parse/index.js';

export const approvalVerdicts = {
  accepted: { codigo: '01', estado: 'Aprobación Comercial Aprobada.' },
  refused: { codigo: '02', estado: 'Aprobacion Comercial Rechazada' },
} as const;

/** DT's validation messages, as published. */
export const dgiiApprovalMessages = {
  notXml: 'Tipo de archivo no válido, favor proveer un XML',
  badStructure:
    'La estructura del archivo XML no es válido, favor proveer un XML con una estructura válida, verificar el XSD correspondiente',
  badSignature: 'La firma del XML no es válida',
  notDelegated: 'El RNC del certificado no está delegado para realizar transacciones para el RNC',
  notFound: 'Factura no encontrada para esta Aprobación comercial.',
  typeTakesNone: 'Aprobación Comercial no es requerida para este tipo de e-CF',
  documentTakesNone: 'Aprobación Comercial no es requerida para el e-CF Referenciado',
  noValidEcf: 'No se encuentra un e-CF válido para esta aprobación comercial',
  tryAgain: 'No fue posible procesar la Aprobación comercial. Favor intentar nuevamente',
} as const;

/** Estado and its reason (Formato Aprobación Comercial: DetalleMotivoRechazo "condicional a que el campo Estado sea
 * código 2"). */
function stateProblems(approval: ReceivedAcecf): string[] {
  const decision = acecfDecision(approval);
  if (!('problem' in decision)) return [];
  switch (decision.problem) {
    case 'estado_invalid':
      return [`El campo Estado (${approval.Estado}) no es válido: 1 e-CF Aceptado, 2 e-CF Rechazado.`];
    case 'reason_not_allowed':
      return ['El campo DetalleMotivoRechazo solo aplica cuando el Estado es 2 (e-CF Rechazado).'];
    case 'reason_required':
      return ['El campo DetalleMotivoRechazo es requerido cuando el Estado es 2 (e-CF Rechazado).'];
  }
}

/** Why DGII would not take this approval for the e-CF it names; empty when it takes it. */
async function approvalProblems(
  context: SandboxContext,
  environment: SandboxEnvironment,
  approval: ReceivedAcecf,
): Promise<string[]> {
  const state = stateProblems(approval);
  if (state.length > 0) return state;
  if (!takesCommercialApproval(approval.eNCF)) return [dgiiApprovalMessages.typeTakesNone];
  const documents = await context.db
    .selectFrom('sandbox_documents')
    .select(['outcome', 'ready_at', 'rnc_comprador', 'fecha_emision', 'monto_total'])
    .where('environment', '=', environment)
    .where('channel', '=', 'ecf')
    .where('rnc_emisor', '=', approval.RNCEmisor)
    .where('encf', '=', approval.eNCF)
    .orderBy('received_at', 'desc')
    .execute();
  if (documents.length === 0) return [dgiiApprovalMessages.notFound];
  const now = context.clock.now();
  // The verdict shows once processing is over (until then DGII says "En Proceso"): only then is it accepted.
  const accepted = documents.find(
    (document) => (document.outcome === 1 || document.outcome === 4) && document.ready_at.getTime() <= now.getTime(),
  );
  if (accepted === undefined) return [dgiiApprovalMessages.noValidEcf];
  if (accepted.rnc_comprador === null) return [dgiiApprovalMessages.documentTakesNone];
  const mismatches = acecfMismatches(approval, {
    RNCComprador: accepted.rnc_comprador,
    FechaEmision: accepted.fecha_emision,
    MontoTotal: accepted.monto_total,
  });
  return mismatches.map((field) => {
    switch (field) {
      case 'RNCComprador':
        return `El RNCComprador (${approval.RNCComprador}) no corresponde con el del e-CF referenciado.`;
      case 'FechaEmision':
        return `La FechaEmision (${approval.FechaEmision}) no corresponde con la del e-CF referenciado.`;
      case 'MontoTotal':
        return `El MontoTotal (${approval.MontoTotal}) no corresponde con el del e-CF referenciado.`;
    }
  });
}

interface Verdict {
  status: number;
  accepted: boolean;
  mensaje: string[];
  note: string;
  /** What certification counts once the approval is stored (certification/approval-tests.ts). */
  settle?: (() => Promise<void>) | undefined;
}

function versionOf(tree: XmlTree): string | undefined {
  const detail = groupsOf(tree, 'DetalleAprobacionComercial')[0];
  return detail === undefined ? undefined : textOf(detail, 'Version');
}

const refusedWith = (note: string, mensaje: string[], status = 400): Verdict => ({
  status,
  accepted: false,
  mensaje,
  note: `refused:${note}`,
});

async function judge(
  context: SandboxContext,
  request: FastifyRequest,
  environment: SandboxEnvironment,
  session: Session,
): Promise<{ approval?: ReceivedAcecf; xml?: string; verdict: Verdict }> {
  const upload = await readSignedUpload(context, request, 'ACECF', dgiiApprovalMessages);
  if (!upload.ok) return { verdict: refusedWith(upload.reason, [upload.mensaje], upload.status) };
  const approval = readAcecf(upload.tree);
  if (approval === undefined)
    return {
      verdict: refusedWith('structure', [`${dgiiApprovalMessages.badStructure}. Faltan campos requeridos del ACECF.`]),
    };
  const found = { approval, xml: upload.xml };
  // The buyer sends it: its certificate must act for the buyer.
  if (!(await actsFor(context, session, upload.signerSha256, approval.RNCComprador))) {
    return {
      ...found,
      verdict: refusedWith('not_delegated', [`${dgiiApprovalMessages.notDelegated}: ${approval.RNCComprador}`]),
    };
  }
  const state = stateProblems(approval);
  if (state.length > 0) return { ...found, verdict: refusedWith('invalid', state) };
  // In CerteCF, a buyer with a postulación in progress is judged by its certification step instead.
  const staged = await approvalStageVerdict(context, environment, { ...approval, Version: versionOf(upload.tree) });
  if (staged !== undefined && !staged.accepted) return { ...found, verdict: staged };
  const problems = staged === undefined ? await approvalProblems(context, environment, approval) : [];
  if (problems.length > 0) return { ...found, verdict: refusedWith('invalid', problems) };
  if (request.sandboxFault === 'reject')
    return { ...found, verdict: refusedWith('fault_reject', [dgiiApprovalMessages.tryAgain]) };
  return { ...found, verdict: staged ?? { status: 200, accepted: true, mensaje: [], note: 'accepted' } };
}

async function handle(
  context: SandboxContext,
  request: FastifyRequest,
  reply: FastifyReply,
  environment: SandboxEnvironment,
): Promise<FastifyReply> {
  const session = await sessionOf(context, request, environment);
  if (session === undefined) {
    await recordArrival(context, { service: 'aprobacioncomercial', environment, outcome: 'refused:no_session' });
    return unauthorized(reply);
  }
  const { approval, xml, verdict } = await judge(context, request, environment, session);
  const lost = verdict.accepted && request.sandboxFault === 'accept_then_lose';
  if (approval !== undefined && xml !== undefined && !lost) {
    await context.db
      .insertInto('sandbox_approvals')
      .values({
        environment,
        rnc_emisor: approval.RNCEmisor,
        encf: approval.eNCF,
        rnc_comprador: approval.RNCComprador,
        estado: approval.Estado,
        received_at: context.clock.now(),
        accepted: verdict.accepted,
        xml,
      })
      .execute();
  }
  if (!lost) await verdict.settle?.();
  // Logged under the e-CF it approves (issuer and e-NCF), the pair that names a document everywhere else.
  await recordArrival(context, {
    service: 'aprobacioncomercial',
    environment,
    rnc: approval?.RNCEmisor,
    encf: approval?.eNCF,
    outcome: lost ? `${verdict.note}:lost` : verdict.note,
  });
  const { codigo, estado } = verdict.accepted ? approvalVerdicts.accepted : approvalVerdicts.refused;
  return sendDgiiReply(request, reply, verdict.status, 'RespuestaAprobacionComercial', {
    mensaje: verdict.mensaje,
    estado,
    codigo,
  });
}

export function commercialApprovalRoutes(app: SandboxApp, context: SandboxContext): void {
  dgiiRoute(app, {
    method: 'POST',
    service: 'aprobacioncomercial',
    path: '/aprobacioncomercial/api/aprobacioncomercial',
    handler: (request, reply, environment) => handle(context, request, reply, environment),
  });
}
