// The counterpart as a receiver (DT "Estándar de comunicación Emisor-Receptor", simulator "Recepción"; research/
// dgii-protocol.md §6.1, §6.2): every e-CF sent to it is answered with a signed ARECF, Estado 0 "e-CF Recibido" or
// 1 "No Recibido" with the reason. What arrived is kept in the arrivals log (service emisorreceptor), which is also
// how a resend is recognised as a duplicate. Injected faults make it answer as a faulty receiver would
// (docs/sandbox.md, Faults).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { formatDgiiTimestamp } from '../../fiscal/dates.js';
import { identifiersOf, judgeReceivedEcf, type ReceivedIdentifiers } from '../../fiscal/receiving/received-ecf.js';
import { buildArecf, type NotReceivedReason } from '../../fiscal/responses/arecf.js';
import { signCanonicalDocument } from '../../fiscal/xmldsig/index.js';
import { recordArrival } from '../http/arrivals.js';
import type { SandboxContext } from '../http/context.js';
import { messageError, unauthorized } from '../http/dgii-replies.js';
import { readXmlUpload } from '../http/xml-upload.js';
import type { SandboxDocumentFaultMode, SandboxEnvironment } from '../state/schema.js';
import { counterpartCaller } from './counterpart-authentication.js';

type Received = ReceivedIdentifiers;

type Verdict = { received: true } | { received: false; reason: NotReceivedReason; outcome: string };

/** What the receiver answers, and logs as the arrival's outcome. */
interface Answer {
  verdict: Verdict;
  /** The e-CF the ARECF names: the one posted, unless a fault confuses it. */
  about: Received;
  signed: boolean;
  outcome: string;
}

/**
 * Outcomes of an e-CF the receiver kept, so that a resend of it is a duplicate. A fault that garbles only the answer
 * (unsigned, about another e-CF) keeps it: the receiver did receive it.
 */
const keptOutcomes = ['received', 'fault:arecf_unsigned', 'fault:arecf_foreign'];

/** The receiver's verdict (fiscal/receiving), duplicates found in the arrivals log. Unreadable input is a specification error here too. */
async function judge(
  context: SandboxContext,
  environment: SandboxEnvironment,
  xml: Buffer,
  identifiers: Received,
): Promise<Verdict> {
  const verdict = await judgeReceivedEcf(xml, identifiers, {
    schemas: context.schemas,
    receiverRnc: context.counterpart.rnc,
    alreadyReceived: async (ids) => {
      const earlier = await context.db
        .selectFrom('sandbox_arrivals')
        .select('id')
        .where('service', '=', 'emisorreceptor')
        .where('environment', '=', environment)
        .where('outcome', 'in', keptOutcomes)
        .where('rnc', '=', ids.RNCEmisor)
        .where('encf', '=', ids.eNCF)
        .executeTakeFirst();
      return earlier !== undefined;
    },
  });
  if (verdict.kind === 'received') return { received: true };
  if (verdict.kind === 'unreadable') return { received: false, reason: '1', outcome: 'not_received:specification' };
  return { received: false, reason: verdict.reason, outcome: verdict.outcome };
}

/** The issuer's next e-NCF (same type, sequence plus one): the e-CF a confused receiver acknowledges instead. */
function anotherEcf(identifiers: Received): Received {
  const sequence = Number(identifiers.eNCF.slice(3));
  const next = String((sequence % 9_999_999_999) + 1).padStart(10, '0');
  return { ...identifiers, eNCF: `${identifiers.eNCF.slice(0, 3)}${next}` };
}

/** The answer to the verdict, as an injected fault (if any) makes the receiver give it. */
function answerOf(verdict: Verdict, identifiers: Received, fault: SandboxDocumentFaultMode | undefined): Answer {
  const ordinary: Answer = {
    verdict,
    about: identifiers,
    signed: true,
    outcome: verdict.received ? 'received' : verdict.outcome,
  };
  if (fault === undefined) return ordinary;
  const outcome = `fault:${fault}`;
  const refused = (reason: NotReceivedReason): Answer => ({
    ...ordinary,
    verdict: { received: false, reason, outcome },
    outcome,
  });
  switch (fault) {
    // Estado 1 with the fault's reason, whatever was sent (`reject` is the older name of reason 1).
    case 'reject':
    case 'not_received_1':
      return refused('1');
    case 'not_received_2':
      return refused('2');
    case 'not_received_3':
      return refused('3');
    case 'not_received_4':
      return refused('4');
    // The rest change only the answer to an e-CF it receives; a refusal is answered as ever. "Accept then lose"
    // keeps no trace, so the same e-CF sent again is not a duplicate.
    case 'accept_then_lose':
      return verdict.received ? { ...ordinary, outcome } : ordinary;
    case 'arecf_unsigned':
      return verdict.received ? { ...ordinary, signed: false, outcome } : ordinary;
    case 'arecf_foreign':
      return verdict.received ? { ...ordinary, about: anotherEcf(identifiers), outcome } : ordinary;
  }
}

function sendArecf(context: SandboxContext, reply: FastifyReply, answer: Answer): FastifyReply {
  // FARECF: RNCComprador is the RNC of the taxpayer issuing the acknowledgement, whoever the e-CF named.
  const base = {
    ...answer.about,
    RNCComprador: context.counterpart.rnc,
    FechaHoraAcuseRecibo: formatDgiiTimestamp(context.clock.now()),
  };
  const { verdict } = answer;
  const arecf = verdict.received
    ? buildArecf({ ...base, Estado: '0' })
    : buildArecf({ ...base, Estado: '1', CodigoMotivoNoRecibido: verdict.reason });
  return reply
    .code(200)
    .type('application/xml; charset=utf-8')
    .send(answer.signed ? signCanonicalDocument(arecf, context.counterpart.key) : arecf);
}

export async function receiveEcf(
  context: SandboxContext,
  environment: SandboxEnvironment,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const caller = await counterpartCaller(context, request, environment);
  if (!caller.ok) {
    await recordArrival(context, { service: 'emisorreceptor', environment, outcome: 'unauthorized' });
    return unauthorized(reply);
  }
  const upload = await readXmlUpload(request);
  if (!upload.ok) {
    await recordArrival(context, { service: 'emisorreceptor', environment, outcome: 'refused:upload' });
    return messageError(reply, upload.status, upload.mensaje);
  }
  const text = upload.xml.toString('utf8');
  const identifiers = identifiersOf(text, upload.filename);
  const verdict = await judge(context, environment, upload.xml, identifiers);
  const answer = answerOf(verdict, identifiers, request.sandboxFault);
  await recordArrival(context, {
    service: 'emisorreceptor',
    environment,
    rnc: identifiers.RNCEmisor,
    encf: identifiers.eNCF,
    outcome: answer.outcome,
  });
  return sendArecf(context, reply, answer);
}
