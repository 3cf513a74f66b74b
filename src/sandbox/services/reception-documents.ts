// The documents DGII received (e-CF and RFCE) as the sandbox keeps them, and the ways they are shown back: the
// verdict decided on arrival, "En Proceso" until ready_at, the estado texts and DGII's US-style reception date.
import type { FastifyRequest } from 'fastify';
import type { SandboxContext } from '../http/context.js';
import { isDelegated } from '../http/sessions.js';
import type { SandboxDocumentsTable, SandboxEnvironment, SandboxMessage } from '../state/schema.js';
import type { DocumentFacts, Refusal } from './document-checks.js';

/** consulta resultado's codes (research/dgii-protocol.md §2). */
export const estados = { 0: 'No encontrado', 1: 'Aceptado', 2: 'Rechazado', 3: 'En Proceso', 4: 'Aceptado Condicional' } as const;

export interface Verdict {
  outcome: 1 | 2 | 4;
  secuenciaUtilizada: boolean;
  mensajes: SandboxMessage[];
  /** For the arrivals log when rejected. */
  reason?: string;
}

export function rejected(refusal: Refusal): Verdict {
  return { outcome: 2, secuenciaUtilizada: refusal.secuenciaUtilizada, mensajes: refusal.mensajes, reason: refusal.reason };
}

export interface StoredDocumentInput {
  trackId: string;
  environment: SandboxEnvironment;
  channel: 'ecf' | 'rfce';
  facts: DocumentFacts;
  securityCode: string | undefined;
  verdict: Verdict;
  readyAt: Date;
  xml: Buffer;
}

export async function storeDocument(context: SandboxContext, input: StoredDocumentInput): Promise<void> {
  const { facts, verdict } = input;
  await context.db
    .insertInto('sandbox_documents')
    .values({
      track_id: input.trackId,
      environment: input.environment,
      channel: input.channel,
      rnc_emisor: facts.rncEmisor,
      encf: facts.encf,
      type: facts.tipoeCF,
      received_at: context.clock.now(),
      ready_at: input.readyAt,
      outcome: verdict.outcome,
      secuencia_utilizada: verdict.secuenciaUtilizada,
      messages: JSON.stringify(verdict.mensajes),
      monto_total: facts.montoTotal ?? null,
      total_itbis: facts.totalItbis ?? null,
      fecha_emision: facts.fechaEmision ?? null,
      fecha_firma: facts.fechaFirma ?? null,
      rnc_comprador: facts.rncComprador ?? null,
      id_extranjero: facts.idExtranjero ?? null,
      security_code: input.securityCode ?? null,
      xml: input.xml.toString('utf8'),
    })
    .execute();
}

export type StoredDocument = Omit<SandboxDocumentsTable, 'messages'> & { messages: SandboxMessage[] };

/** Every document received for an e-NCF of an issuer, oldest first. */
export async function documentsFor(context: SandboxContext, environment: SandboxEnvironment, rnc: string, encf: string, channel?: 'ecf' | 'rfce'): Promise<StoredDocument[]> {
  let query = context.db
    .selectFrom('sandbox_documents')
    .selectAll()
    .where('environment', '=', environment)
    .where('rnc_emisor', '=', rnc)
    .where('encf', '=', encf);
  if (channel !== undefined) query = query.where('channel', '=', channel);
  return query.orderBy('received_at').execute();
}

export async function documentByTrackId(context: SandboxContext, environment: SandboxEnvironment, trackId: string): Promise<StoredDocument | undefined> {
  return context.db.selectFrom('sandbox_documents').selectAll().where('environment', '=', environment).where('track_id', '=', trackId).executeTakeFirst();
}

export function isReady(context: SandboxContext, document: StoredDocument): boolean {
  return document.ready_at.getTime() <= context.clock.now().getTime();
}

function isAccepted(document: StoredDocument): boolean {
  return document.outcome === 1 || document.outcome === 4;
}

/**
 * The verdict that stands for an e-NCF: an accepted document, once ready, stays the one on record even if a copy
 * sent later was rejected as a duplicate (that rejection does not void the invoice); otherwise the latest one.
 */
export function standingVerdict(context: SandboxContext, documents: readonly StoredDocument[]): StoredDocument | undefined {
  const ready = documents.filter((document) => isReady(context, document));
  return ready.findLast(isAccepted) ?? ready.at(-1);
}

/** Whether an e-NCF of this issuer was accepted (outcome 1 or 4) here, by either channel. */
export async function wasAccepted(context: SandboxContext, environment: SandboxEnvironment, rnc: string, encf: string): Promise<boolean> {
  const documents = await documentsFor(context, environment, rnc, encf);
  return documents.some(isAccepted);
}

/** What queries show of a stored document: En Proceso (3) until its verdict is ready. */
export function shownCode(context: SandboxContext, document: StoredDocument): 1 | 2 | 3 | 4 {
  return isReady(context, document) ? document.outcome : 3;
}

/** Only a session delegated for the issuer (or, where DGII allows it, the buyer) sees a document. */
export async function mayView(context: SandboxContext, certificateSha256: string, document: StoredDocument, buyerToo = false): Promise<boolean> {
  if (await isDelegated(context, certificateSha256, document.rnc_emisor)) return true;
  return buyerToo && document.rnc_comprador !== null && (await isDelegated(context, certificateSha256, document.rnc_comprador));
}

/** DGII's fechaRecepcion: US style `M/d/yyyy h:mm:ss AM` in GMT-4, e.g. "10/8/2026 11:22:49 AM" (§2). */
export function usReceptionDate(instant: Date): string {
  const local = new Date(instant.getTime() - 4 * 3_600_000);
  const hours = local.getUTCHours();
  const twelve = hours % 12 === 0 ? 12 : hours % 12;
  const two = (value: number) => String(value).padStart(2, '0');
  const date = `${String(local.getUTCMonth() + 1)}/${String(local.getUTCDate())}/${String(local.getUTCFullYear())}`;
  return `${date} ${String(twelve)}:${two(local.getUTCMinutes())}:${two(local.getUTCSeconds())} ${hours < 12 ? 'AM' : 'PM'}`;
}

/** A query parameter by name in any letter case, as ASP.NET binds them; undefined when absent or blank. */
export function queryParameter(request: FastifyRequest, name: string): string | undefined {
  const query = request.query as Record<string, unknown>;
  const key = Object.keys(query).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : query[key];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** ASP.NET's answer to missing required query parameters, which is what DGII's services give. */
export function missingParameters(names: readonly string[]): { title: string; status: 400; errors: Record<string, string[]> } {
  return {
    title: 'One or more validation errors occurred.',
    status: 400,
    errors: Object.fromEntries(names.map((name) => [name, [`The ${name} field is required.`]])),
  };
}
