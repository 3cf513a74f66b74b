// ANECF, voiding unused e-NCF (anulacionrangos/api/operaciones/anularrango; DT "Anulación de e-NCF";
// research/dgii-protocol.md §7). Validated like DGII: XSD, signature, delegation, the blocks' rules, the numbers
// authorised to the taxpayer. Unused numbers are voided; used ones are refused and listed, and when both happen DGII
// says the sequences were voided "con excepción" of those in the detail.
//
// Answer: `{rnc, codigo, nombre, mensajes: [strings]}`. DGII publishes no catalogue of `codigo` (research §2, §12),
// so these are the sandbox's own: "01" every number voided (HTTP 200), "02" voided with exceptions (HTTP 200),
// "03" nothing voided, the request refused (HTTP 400). `nombre` names the outcome in words.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxApp, SandboxContext } from '../http/context.js';
import { recordArrival } from '../http/arrivals.js';
import { unauthorized } from '../http/dgii-replies.js';
import { dgiiRoute } from '../http/sandbox-route.js';
import { sessionOf, type Session } from '../http/sessions.js';
import type { SandboxEnvironment } from '../state/schema.js';
import { describeSpan, describeTaken, unauthorisedSpans, voidSpans } from './annulment-ranges.js';
import { sendDgiiReply } from '../http/reply-format.js';
import {
  annulmentProblems,
  dgiiAnnulmentMessages,
  readAnnulment,
  spansOf,
  type AnnulmentRequest,
} from './annulment-request.js';
import { actsFor, isElectronicTaxpayer, readSignedUpload } from './signed-upload.js';

export const annulmentCodes = {
  voided: { codigo: '01', nombre: 'Anulación procesada' },
  voidedWithExceptions: { codigo: '02', nombre: 'Anulación procesada con excepciones' },
  refused: { codigo: '03', nombre: 'Anulación rechazada' },
} as const;

/** How many runs of refused numbers the answer lists before summing up the rest. */
const listedRuns = 100;

interface Answer {
  status: number;
  outcome: keyof typeof annulmentCodes;
  mensajes: string[];
  /** For the arrivals log. */
  note: string;
}

function refused(note: string, mensajes: string[]): Answer {
  return { status: 400, outcome: 'refused', mensajes, note: `refused:${note}` };
}

/** Everything decided from the request and the state: which numbers to void, or why none. */
async function judge(
  context: SandboxContext,
  request: FastifyRequest,
  environment: SandboxEnvironment,
  session: Session,
  annulment: AnnulmentRequest,
  signerSha256: string,
): Promise<Answer> {
  const rnc = annulment.RncEmisor;
  if (!(await isElectronicTaxpayer(context, rnc)))
    return refused('not_electronic', [`El RNC ${rnc} no está registrado como contribuyente electrónico activo.`]);
  if (!(await actsFor(context, session, signerSha256, rnc)))
    return refused('not_delegated', [`${dgiiAnnulmentMessages.notDelegated}: ${rnc}`]);
  const problems = annulmentProblems(annulment);
  if (problems.length > 0) return refused('invalid_blocks', problems);
  const spans = spansOf(annulment);
  const total = spans.reduce((sum, span) => sum + (span.to - span.from + 1), 0);
  const unauthorised = await unauthorisedSpans(context.db, environment, rnc, spans);
  if (unauthorised.length > 0) {
    return refused('not_authorised', [
      dgiiAnnulmentMessages.couldNotVoid,
      ...unauthorised.map((span) => `${describeSpan(span)}: no autorizada al RNC ${rnc}`),
    ]);
  }
  if (request.sandboxFault === 'reject')
    return refused('fault_reject', [dgiiAnnulmentMessages.couldNotVoid, ...spans.map(describeSpan)]);
  const persist = request.sandboxFault !== 'accept_then_lose';
  const outcome = await voidSpans(context.db, environment, rnc, spans, context.clock.now(), persist);
  const lost = persist ? '' : ':lost';
  if (outcome.voided === 0)
    return refused('all_used', [dgiiAnnulmentMessages.allUsed, ...describeTaken(outcome.excepted, listedRuns)]);
  if (outcome.excepted.length > 0) {
    return {
      status: 200,
      outcome: 'voidedWithExceptions',
      mensajes: [dgiiAnnulmentMessages.voidedWithExceptions, ...describeTaken(outcome.excepted, listedRuns)],
      note: `voided:${String(outcome.voided)}/${String(total)}${lost}`,
    };
  }
  return {
    status: 200,
    outcome: 'voided',
    mensajes: [`Las secuencias fueron anuladas correctamente (${String(total)}).`],
    note: `voided:${String(total)}${lost}`,
  };
}

async function annul(
  context: SandboxContext,
  request: FastifyRequest,
  environment: SandboxEnvironment,
  session: Session,
): Promise<{ rnc: string; answer: Answer }> {
  const upload = await readSignedUpload(context, request, 'ANECF', {
    notXml: dgiiAnnulmentMessages.notXml,
    badStructure:
      'La estructura del archivo XML no es válida, favor proveer un XML con una estructura válida, verificar el XSD correspondiente',
    badSignature: dgiiAnnulmentMessages.badSignature,
  });
  if (!upload.ok) return { rnc: '', answer: { ...refused(upload.reason, [upload.mensaje]), status: upload.status } };
  const annulment = readAnnulment(upload.tree);
  if (annulment === undefined)
    return {
      rnc: '',
      answer: refused('structure', ['La estructura del archivo XML no es válida: faltan campos requeridos del ANECF.']),
    };
  return {
    rnc: annulment.RncEmisor,
    answer: await judge(context, request, environment, session, annulment, upload.signerSha256),
  };
}

async function handle(
  context: SandboxContext,
  request: FastifyRequest,
  reply: FastifyReply,
  environment: SandboxEnvironment,
): Promise<FastifyReply> {
  const session = await sessionOf(context, request, environment);
  if (session === undefined) {
    await recordArrival(context, { service: 'anulacionrangos', environment, outcome: 'refused:no_session' });
    return unauthorized(reply);
  }
  const { rnc, answer } = await annul(context, request, environment, session);
  await recordArrival(context, {
    service: 'anulacionrangos',
    environment,
    rnc: rnc === '' ? undefined : rnc,
    outcome: answer.note,
  });
  return sendDgiiReply(request, reply, answer.status, 'RespuestaAnulacionRango', {
    rnc,
    ...annulmentCodes[answer.outcome],
    mensajes: answer.mensajes,
  });
}

export function annulmentRoutes(app: SandboxApp, context: SandboxContext): void {
  dgiiRoute(app, {
    method: 'POST',
    service: 'anulacionrangos',
    path: '/anulacionrangos/api/operaciones/anularrango',
    handler: (request, reply, environment) => handle(context, request, reply, environment),
  });
}
