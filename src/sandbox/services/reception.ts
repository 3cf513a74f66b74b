// e-CF reception (recepcion/api/facturaselectronicas; research/dgii-protocol.md §1.2, §2). DGII answers a trackId at
// once and validates behind it: the sandbox decides the verdict on arrival, stores it, and shows it through
// consultaresultado only after the processing delay (3 "En Proceso" until then), so a client must poll like it
// polls DGII. A request DGII cannot take at all (no session, no file, unreadable XML, a file name that does not
// match the document) is refused at once without a trackId.
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { detectKind } from '../../fiscal/xsd/index.js';
import type { SandboxApp, SandboxContext } from '../http/context.js';
import { dgiiRoute } from '../http/sandbox-route.js';
import { takeDocument } from './document-intake.js';
import type { SandboxEnvironment } from '../state/schema.js';
import { processingDelayMs } from '../state/settings.js';
import { injectedRejection, messageCodes, runCommonChecks, type DocumentFacts } from './document-checks.js';
import { recordReception, rejected, type Verdict } from './reception-documents.js';
import { contentVerdict } from './reception-content.js';
import { reviewForCertification } from '../certification/document-review.js';

interface Judgement {
  verdict: Verdict;
  securityCode: string | undefined;
}

async function judge(
  context: SandboxContext,
  environment: SandboxEnvironment,
  xml: Buffer,
  facts: DocumentFacts,
  sessionSha256: string,
): Promise<Judgement> {
  const kind = detectKind(xml);
  if (kind === undefined || !kind.startsWith('e-CF-')) {
    return {
      verdict: rejected({
        reason: 'schema',
        mensajes: [{ valor: `TipoeCF ${facts.tipoeCF} no es un tipo de e-CF.`, codigo: messageCodes.schemaInvalid }],
        secuenciaUtilizada: false,
      }),
      securityCode: undefined,
    };
  }
  const common = await runCommonChecks(context, {
    environment,
    kind,
    xml,
    facts,
    sessionCertificateSha256: sessionSha256,
  });
  if (!common.ok) return { verdict: rejected(common.refusal), securityCode: common.securityCode };
  return { verdict: await contentVerdict(context, environment, xml, facts), securityCode: common.securityCode };
}

async function receive(
  context: SandboxContext,
  request: FastifyRequest,
  reply: FastifyReply,
  environment: SandboxEnvironment,
): Promise<FastifyReply> {
  const taken = await takeDocument(context, request, reply, { environment, service: 'recepcion', root: 'ECF' });
  if (!taken.ok) return taken.reply;
  const { session, xml, facts, arrival, arrivalEntry } = taken.intake;

  const trackId = randomUUID();
  if (request.sandboxFault === 'accept_then_lose') {
    // DGII gave a trackId and then lost the document: nothing is stored, queries answer 0 "No encontrado".
    await arrival('lost', trackId);
    return reply.send({ trackId });
  }
  const judgement =
    request.sandboxFault === 'reject'
      ? { verdict: rejected(injectedRejection()), securityCode: undefined }
      : await judge(context, environment, xml, facts, session.certificateSha256);
  // In CerteCF, a postulación in its data or simulation tests judges further and counts (certification/).
  const review = await reviewForCertification(context, {
    environment,
    channel: 'ecf',
    facts,
    xml,
    verdict: judgement.verdict,
  });
  // The verdict burns the e-NCF unless another copy took it between our check and now (recordReception says so).
  const stored = await recordReception(context, {
    trackId,
    environment,
    channel: 'ecf',
    facts,
    securityCode: judgement.securityCode,
    verdict: review?.verdict ?? judgement.verdict,
    alreadyUsed: review?.alreadyUsed,
    processingDelayMs: await processingDelayMs(context.db),
    xml,
    arrival: { ...arrivalEntry, trackId, outcomeOf: () => 'accepted' },
  });
  await review?.settle(stored);
  return reply.send({ trackId });
}

export function receptionRoutes(app: SandboxApp, context: SandboxContext): void {
  dgiiRoute(app, {
    method: 'POST',
    service: 'recepcion',
    path: '/recepcion/api/facturaselectronicas',
    handler: (request, reply, environment) => receive(context, request, reply, environment),
  });
}
