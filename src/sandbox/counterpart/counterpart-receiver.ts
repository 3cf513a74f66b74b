// The counterpart as a receiver (DT "Estándar de comunicación Emisor-Receptor", simulator "Recepción"; research/
// dgii-protocol.md §6.1, §6.2): every e-CF sent to it is answered with a signed ARECF, Estado 0 "e-CF Recibido" or
// 1 "No Recibido" with the reason. What arrived is kept in the arrivals log (service emisorreceptor), which is also
// how a resend is recognised as a duplicate.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { textAt } from '../../fiscal/rules/document-view.js';
import { formatDgiiTimestamp } from '../../fiscal/dates.js';
import { parseEcf } from '../../fiscal/parse/index.js';
import { buildArecf, type NotReceivedReason } from '../../fiscal/responses/arecf.js';
import { signCanonicalDocument, verifyEnvelopedSignature } from '../../fiscal/xmldsig/index.js';
import { detectKind } from '../../fiscal/xsd/index.js';
import { recordArrival } from '../http/arrivals.js';
import type { SandboxContext } from '../http/context.js';
import { messageError, unauthorized } from '../http/dgii-replies.js';
import { readXmlUpload } from '../http/xml-upload.js';
import type { SandboxEnvironment } from '../state/schema.js';
import { counterpartCaller } from './counterpart-authentication.js';
import { isTypeSentToReceiver } from './counterpart-documents.js';

interface Received {
  RNCEmisor: string;
  eNCF: string;
}

type Verdict = { received: true } | { received: false; reason: NotReceivedReason; outcome: string };

const rncPattern = /^(\d{9}|\d{11})$/;
const encfPattern = /^[A-Za-z0-9]{13}$/;

/**
 * The identifiers the ARECF must repeat: the RNCEmisor and eNCF elements of the document's text (found even when it
 * is not a valid e-CF), else its file name (`RNCEmisor+eNCF.xml`). The ARECF's XSD requires them even when the e-CF was unreadable, and the standard has no
 * "unknown"; when nothing names them, zeros keep the acknowledgement valid (DGII's own choice here is not public).
 */
function identifiersOf(text: string, filename: string): Received {
  const fromText = (name: string, pattern: RegExp): string | undefined => {
    const value = new RegExp(`<${name}>\\s*([^<\\s]+)\\s*</${name}>`).exec(text)?.[1];
    return value !== undefined && pattern.test(value) ? value : undefined;
  };
  const fromName = /^(\d{9}|\d{11})([A-Za-z0-9]{13})\.xml$/i.exec(filename);
  return {
    RNCEmisor: fromText('RNCEmisor', rncPattern) ?? fromName?.[1] ?? '000000000',
    eNCF: fromText('eNCF', encfPattern) ?? fromName?.[2] ?? 'E000000000000',
  };
}

async function judge(context: SandboxContext, environment: SandboxEnvironment, xml: Buffer, text: string, identifiers: Received): Promise<Verdict> {
  const parsed = parseEcf(text);
  if (!parsed.ok) return { received: false, reason: '1', outcome: 'not_received:specification' };
  const type = textAt(parsed.document, ['Encabezado', 'IdDoc', 'TipoeCF']) ?? '';
  // DT, simulator: types 32, 41, 43, 45, 46 and 47 are never sent to another taxpayer.
  if (!isTypeSentToReceiver(type)) return { received: false, reason: '1', outcome: 'not_received:type_not_sent_to_receivers' };
  const kind = detectKind(xml);
  if (kind === undefined) return { received: false, reason: '1', outcome: 'not_received:specification' };
  if (context.schemas !== undefined && context.schemas.validate(kind, xml).length > 0) return { received: false, reason: '1', outcome: 'not_received:xsd' };
  if (!verifyEnvelopedSignature(xml).ok) return { received: false, reason: '2', outcome: 'not_received:signature' };
  if (textAt(parsed.document, ['Encabezado', 'Comprador', 'RNCComprador']) !== context.counterpart.rnc) return { received: false, reason: '4', outcome: 'not_received:buyer' };
  const earlier = await context.db
    .selectFrom('sandbox_arrivals')
    .select('id')
    .where('service', '=', 'emisorreceptor')
    .where('environment', '=', environment)
    .where('outcome', '=', 'received')
    .where('rnc', '=', identifiers.RNCEmisor)
    .where('encf', '=', identifiers.eNCF)
    .executeTakeFirst();
  if (earlier !== undefined) return { received: false, reason: '3', outcome: 'not_received:duplicate' };
  return { received: true };
}

function sendArecf(context: SandboxContext, reply: FastifyReply, identifiers: Received, verdict: Verdict): FastifyReply {
  // FARECF: RNCComprador is the RNC of the taxpayer issuing the acknowledgement, whoever the e-CF named.
  const base = { ...identifiers, RNCComprador: context.counterpart.rnc, FechaHoraAcuseRecibo: formatDgiiTimestamp(context.clock.now()) };
  const arecf = verdict.received ? buildArecf({ ...base, Estado: '0' }) : buildArecf({ ...base, Estado: '1', CodigoMotivoNoRecibido: verdict.reason });
  return reply.code(200).type('application/xml; charset=utf-8').send(signCanonicalDocument(arecf, context.counterpart.key));
}

export async function receiveEcf(context: SandboxContext, environment: SandboxEnvironment, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
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
  let verdict = await judge(context, environment, upload.xml, text, identifiers);
  // Faults only the service can act out: "reject" refuses what would have been received; "accept then lose"
  // acknowledges it but keeps no trace, so the same e-CF sent again is not a duplicate.
  if (request.sandboxFault === 'reject') verdict = { received: false, reason: '1', outcome: 'fault:reject' };
  const outcome = verdict.received ? (request.sandboxFault === 'accept_then_lose' ? 'fault:accept_then_lose' : 'received') : verdict.outcome;
  await recordArrival(context, { service: 'emisorreceptor', environment, rnc: identifiers.RNCEmisor, encf: identifiers.eNCF, outcome });
  return sendArecf(context, reply, identifiers, verdict);
}
