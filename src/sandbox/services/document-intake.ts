// What DGII's document receptions (e-CF and RFCE) do before judging anything: a session, an `xml` upload, a
// readable document with the expected root, a file named RNCEmisor+eNCF.xml. A request that fails here is refused
// at once in DGII's shape (no trackId), and every request, refused or not, goes to the arrivals log.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { recordArrival, type Arrival } from '../http/arrivals.js';
import type { SandboxContext } from '../http/context.js';
import { messageError, unauthorized } from '../http/dgii-replies.js';
import type { SandboxService } from '../http/sandbox-route.js';
import { sessionOf, type Session } from '../http/sessions.js';
import { readXmlUpload } from '../http/xml-upload.js';
import type { SandboxEnvironment } from '../state/schema.js';
import { filenameMismatch, readDocumentFacts, type DocumentFacts } from './document-checks.js';

export interface Intake {
  session: Session;
  xml: Buffer;
  facts: DocumentFacts;
  /** Records this request's arrival with its outcome (and the trackId it got, if any). */
  arrival: (outcome: string, trackId?: string) => Promise<void>;
  /** This request's arrivals log entry but for its outcome and trackId, for a reception that writes it with the document. */
  arrivalEntry: Omit<Arrival, 'outcome' | 'trackId'>;
}

export type IntakeResult = { ok: true; intake: Intake } | { ok: false; reply: FastifyReply };

export async function takeDocument(
  context: SandboxContext,
  request: FastifyRequest,
  reply: FastifyReply,
  target: { environment: SandboxEnvironment; service: SandboxService; root: 'ECF' | 'RFCE' },
): Promise<IntakeResult> {
  const entry = (facts?: DocumentFacts) => ({
    service: target.service,
    environment: target.environment,
    rnc: facts?.rncEmisor,
    encf: facts?.encf,
  });
  const arrival = (outcome: string, facts?: DocumentFacts, trackId?: string) =>
    recordArrival(context, { ...entry(facts), trackId, outcome });
  const session = await sessionOf(context, request, target.environment);
  if (session === undefined) {
    await arrival('refused:unauthorized');
    return { ok: false, reply: unauthorized(reply) };
  }
  const upload = await readXmlUpload(request);
  if (!upload.ok) {
    await arrival('refused:upload');
    return { ok: false, reply: messageError(reply, upload.status, upload.mensaje) };
  }
  const read = readDocumentFacts(upload.xml, target.root);
  if (!read.ok) {
    await arrival('refused:unreadable');
    return { ok: false, reply: messageError(reply, 400, read.mensaje) };
  }
  const { facts } = read;
  const misnamed = filenameMismatch(upload.filename, facts);
  if (misnamed !== undefined) {
    await arrival('refused:filename', facts);
    return { ok: false, reply: messageError(reply, 400, misnamed) };
  }
  return {
    ok: true,
    intake: {
      session,
      xml: upload.xml,
      facts,
      arrival: (outcome, trackId) => arrival(outcome, facts, trackId),
      arrivalEntry: entry(facts),
    },
  };
}
