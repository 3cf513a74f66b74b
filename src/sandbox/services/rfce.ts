// RFCE reception (recepcionfc/api/recepcion/ecf) and query (consultarfce/api/Consultas/Consulta): the summary of a
// type 32 under DOP 250,000.00, answered synchronously, without a trackId (research/dgii-protocol.md §1.2, §2, §8).
// The checks are the e-CF's own (document-checks.ts), then the RFCE's rules.
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { consumerSummaryThreshold, isConsumerSummary } from '../../fiscal/timbre-url.js';
import type { SandboxApp, SandboxContext } from '../http/context.js';
import { unauthorized } from '../http/dgii-replies.js';
import { dgiiRoute } from '../http/sandbox-route.js';
import { takeDocument } from './document-intake.js';
import { sessionOf } from '../http/sessions.js';
import type { SandboxEnvironment, SandboxMessage } from '../state/schema.js';
import { injectedRejection, messageCodes, runCommonChecks, type DocumentFacts } from './document-checks.js';
import { reviewForCertification } from '../certification/document-review.js';
import {
  documentsFor,
  estados,
  mayView,
  missingParameters,
  queryParameter,
  recordReception,
  rejected,
  standingVerdict,
  type Verdict,
} from './reception-documents.js';

function refusedOn(reason: string, valor: string, codigo: number, secuenciaUtilizada: boolean): Verdict {
  return { outcome: 2, secuenciaUtilizada, mensajes: [{ valor, codigo }], reason };
}

/** The RFCE's own rules, once the common checks passed (the XSD already enforces them when DGII's XSDs are loaded). */
function rfceRuleVerdict(facts: DocumentFacts): Verdict | undefined {
  if (facts.codigoSeguridadeCF?.length !== 6) {
    return refusedOn(
      'security_code_length',
      'CodigoSeguridadeCF debe tener exactamente 6 caracteres (los primeros 6 del SignatureValue del e-CF 32).',
      messageCodes.securityCodeLength,
      false,
    );
  }
  // A type 32 of DOP 250,000.00 or more goes in full to e-CF reception (§8.1); refused on content, so burned (§2).
  if (facts.montoTotal === undefined || !isConsumerSummary(facts.tipoeCF, facts.montoTotal)) {
    return refusedOn(
      'not_consumer_summary',
      `El RFCE es solo para Facturas de Consumo Electrónicas (TipoeCF 32) con MontoTotal menor a RD$${consumerSummaryThreshold}; este documento se envía completo a recepción de e-CF.`,
      messageCodes.rfceNotConsumerSummary,
      true,
    );
  }
  return undefined;
}

async function judge(
  context: SandboxContext,
  environment: SandboxEnvironment,
  xml: Buffer,
  facts: DocumentFacts,
  sessionSha256: string,
): Promise<Verdict> {
  const common = await runCommonChecks(context, {
    environment,
    kind: 'RFCE-32',
    xml,
    facts,
    sessionCertificateSha256: sessionSha256,
  });
  if (!common.ok) return rejected(common.refusal);
  return rfceRuleVerdict(facts) ?? { outcome: 1, secuenciaUtilizada: true, mensajes: [] };
}

function answer(
  reply: FastifyReply,
  verdict: Pick<Verdict, 'outcome' | 'secuenciaUtilizada'> & { mensajes: SandboxMessage[] },
  encf: string,
): FastifyReply {
  // codigo is a number here, unlike consultaresultado's string (§2).
  return reply.send({
    codigo: verdict.outcome,
    estado: estados[verdict.outcome],
    mensajes: verdict.mensajes,
    encf,
    secuenciaUtilizada: verdict.secuenciaUtilizada,
  });
}

async function receive(
  context: SandboxContext,
  request: FastifyRequest,
  reply: FastifyReply,
  environment: SandboxEnvironment,
): Promise<FastifyReply> {
  const taken = await takeDocument(context, request, reply, { environment, service: 'recepcionfc', root: 'RFCE' });
  if (!taken.ok) return taken.reply;
  const { session, xml, facts, arrival, arrivalEntry } = taken.intake;
  if (request.sandboxFault === 'accept_then_lose') {
    // Answered Aceptado, then lost: consultarfce will not find it.
    await arrival('lost');
    return answer(reply, { outcome: 1, secuenciaUtilizada: true, mensajes: [] }, facts.encf);
  }

  const trackId = randomUUID(); // internal key only: DGII gives the RFCE no trackId
  const judged =
    request.sandboxFault === 'reject'
      ? rejected(injectedRejection())
      : await judge(context, environment, xml, facts, session.certificateSha256);
  // In CerteCF, a postulación in its data or simulation tests judges further and counts (certification/).
  const review = await reviewForCertification(context, { environment, channel: 'rfce', facts, xml, verdict: judged });
  // The verdict burns the e-NCF unless another copy took it between our check and now (recordReception says so).
  const verdict = await recordReception(context, {
    trackId,
    environment,
    channel: 'rfce',
    facts,
    // What consultarfce and consultaestado match Cod_Seguridad_eCF against: the e-CF 32's code the RFCE carries.
    securityCode: facts.codigoSeguridadeCF,
    verdict: review?.verdict ?? judged,
    alreadyUsed: review?.alreadyUsed,
    processingDelayMs: 0,
    xml,
    arrival: {
      ...arrivalEntry,
      outcomeOf: (stored) => (stored.outcome === 2 ? `refused:${stored.reason ?? 'rejected'}` : 'accepted'),
    },
  });
  await review?.settle(verdict);
  return answer(reply, verdict, facts.encf);
}

async function query(
  context: SandboxContext,
  request: FastifyRequest,
  reply: FastifyReply,
  environment: SandboxEnvironment,
): Promise<FastifyReply> {
  const session = await sessionOf(context, request, environment);
  if (session === undefined) return unauthorized(reply);
  const names = ['RNC_Emisor', 'ENCF', 'Cod_Seguridad_eCF'] as const;
  const [rnc, encf, codigoSeguridad] = names.map((name) => queryParameter(request, name));
  if (rnc === undefined || encf === undefined || codigoSeguridad === undefined) {
    return reply.code(400).send(missingParameters(names.filter((name) => queryParameter(request, name) === undefined)));
  }
  const document = standingVerdict(context, await documentsFor(context, environment, rnc, encf, 'rfce'));
  if (
    document === undefined ||
    document.security_code !== codigoSeguridad ||
    !(await mayView(context, session.certificateSha256, document))
  ) {
    return reply.send({ rnc, encf, secuenciaUtilizada: false, codigo: '0', estado: estados[0], mensajes: [] });
  }
  return reply.send({
    rnc,
    encf,
    secuenciaUtilizada: document.secuencia_utilizada,
    codigo: String(document.outcome),
    estado: estados[document.outcome],
    mensajes: document.messages,
  });
}

export function rfceRoutes(app: SandboxApp, context: SandboxContext): void {
  dgiiRoute(app, {
    method: 'POST',
    service: 'recepcionfc',
    path: '/recepcionfc/api/recepcion/ecf',
    handler: (request, reply, environment) => receive(context, request, reply, environment),
  });
  dgiiRoute(app, {
    method: 'GET',
    service: 'consultarfce',
    path: '/consultarfce/api/Consultas/Consulta',
    handler: (request, reply, environment) => query(context, request, reply, environment),
  });
}
