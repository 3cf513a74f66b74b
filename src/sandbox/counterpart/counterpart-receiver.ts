// The counterpart as a receiver (DT "Estándar de comunicación Emisor-Receptor", simulator "Recepción"; research/
// dgii-protocol.md §6.1, §6.2): every e-CF sent to it is answered with a signed ARECF, Estado 0 "e-CF Recibido" or
// 1 "No Recibido" with the reason. What arrived is kept in the arrivals log (service emisorreceptor), which is also
// how a resend is recognised as a duplicate.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { formatDgiiTimestamp } from '../../fiscal/dates.js';
import { identifiersOf, judgeReceivedEcf, type ReceivedIdentifiers } from '../../fiscal/receiving/received-ecf.js';
import { buildArecf, type NotReceivedReason } from '../../fiscal/responses/arecf.js';
import { signCanonicalDocument } from '../../fiscal/xmldsig/index.js';
import { recordArrival } from '../http/arrivals.js';
import type { SandboxContext } from '../http/context.js';
import { messageError, unauthorized } from '../http/dgii-replies.js';
import { readXmlUpload } from '../http/xml-upload.js';
import type { SandboxEnvironment } from '../state/schema.js';
import { counterpartCaller } from './counterpart-authentication.js';

type Received = ReceivedIdentifiers;

type Verdict = { received: true } | { received: false; reason: NotReceivedReason; outcome: string };

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
        .where('outcome', '=', 'received')
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

function sendArecf(
  context: SandboxContext,
  reply: FastifyReply,
  identifiers: Received,
  verdict: Verdict,
): FastifyReply {
  // FARECF: RNCComprador is the RNC of the taxpayer issuing the acknowledgement, whoever the e-CF named.
  const base = {
    ...identifiers,
    RNCComprador: context.counterpart.rnc,
    FechaHoraAcuseRecibo: formatDgiiTimestamp(context.clock.now()),
  };
  const arecf = verdict.received
    ? buildArecf({ ...base, Estado: '0' })
    : buildArecf({ ...base, Estado: '1', CodigoMotivoNoRecibido: verdict.reason });
  return reply
    .code(200)
    .type('application/xml; charset=utf-8')
    .send(signCanonicalDocument(arecf, context.counterpart.key));
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
  let verdict = await judge(context, environment, upload.xml, identifiers);
  // Faults only the service can act out: "reject" refuses what would have been received; "accept then lose"
  // acknowledges it but keeps no trace, so the same e-CF sent again is not a duplicate.
  if (request.sandboxFault === 'reject') verdict = { received: false, reason: '1', outcome: 'fault:reject' };
  const outcome = verdict.received
    ? request.sandboxFault === 'accept_then_lose'
      ? 'fault:accept_then_lose'
      : 'received'
    : verdict.outcome;
  await recordArrival(context, {
    service: 'emisorreceptor',
    environment,
    rnc: identifiers.RNCEmisor,
    encf: identifiers.eNCF,
    outcome,
  });
  return sendArecf(context, reply, identifiers, verdict);
}
