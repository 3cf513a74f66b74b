// The documents DGII received (e-CF and RFCE) as the sandbox keeps them, and the ways they are shown back: the
// verdict decided on arrival, "En Proceso" until ready_at, the estado texts and DGII's US-style reception date.
import type { FastifyRequest } from 'fastify';
import { sql, type Expression } from 'kysely';
import { arrivalInsert, type Arrival } from '../http/arrivals.js';
import type { SandboxContext } from '../http/context.js';
import { isDelegated } from '../http/sessions.js';
import { executePrepared } from '../../platform/db/prepared.js';
import type { SandboxDocumentsTable, SandboxEnvironment, SandboxMessage } from '../state/schema.js';
import { isVoided } from '../state/voided-spans.js';
import { usedRefusal, type DocumentFacts, type Refusal } from './document-checks.js';

/** consulta resultado's codes (research/dgii-protocol.md §2). */
export const estados = {
  0: 'No encontrado',
  1: 'Aceptado',
  2: 'Rechazado',
  3: 'En Proceso',
  4: 'Aceptado Condicional',
} as const;

export interface Verdict {
  outcome: 1 | 2 | 4;
  secuenciaUtilizada: boolean;
  mensajes: SandboxMessage[];
  /** For the arrivals log when rejected. */
  reason?: string;
}

export function rejected(refusal: Refusal): Verdict {
  return {
    outcome: 2,
    secuenciaUtilizada: refusal.secuenciaUtilizada,
    mensajes: refusal.mensajes,
    reason: refusal.reason,
  };
}

export interface ReceptionInput {
  trackId: string;
  environment: SandboxEnvironment;
  channel: 'ecf' | 'rfce';
  facts: DocumentFacts;
  securityCode: string | undefined;
  verdict: Verdict;
  /** How long after its reception the verdict shows (consultaresultado answers En Proceso until then). */
  processingDelayMs: number;
  xml: Buffer;
  /** The verdict when the e-NCF turns out burned already (by a copy judged meanwhile); the usual refusal if not given. */
  alreadyUsed?: Verdict | undefined;
  /** This request's arrivals log entry, and the outcome a verdict gets there. */
  arrival: Omit<Arrival, 'outcome' | 'trackId'> & { trackId?: string; outcomeOf: (verdict: Verdict) => string };
}

/**
 * Stores a judged document and its arrival, and burns its e-NCF when the verdict does (secuenciaUtilizada), in ONE
 * statement: atomic without a transaction, one round trip. If another copy burned the e-NCF first, or an ANECF voided
 * it (between the already-used check and now), the document is stored refused as already used instead. Returns the
 * verdict stored.
 */
export async function recordReception(context: SandboxContext, input: ReceptionInput): Promise<Verdict> {
  const { db } = context;
  const { facts, verdict } = input;
  const now = context.clock.now();
  const document = (
    outcome: Verdict['outcome'] | Expression<Verdict['outcome']>,
    messages: string | Expression<string>,
  ) =>
    db.insertInto('sandbox_documents').values({
      track_id: input.trackId,
      environment: input.environment,
      channel: input.channel,
      rnc_emisor: facts.rncEmisor,
      encf: facts.encf,
      type: facts.tipoeCF,
      received_at: now,
      ready_at: new Date(now.getTime() + input.processingDelayMs),
      outcome,
      secuencia_utilizada: verdict.secuenciaUtilizada,
      messages,
      monto_total: facts.montoTotal ?? null,
      total_itbis: facts.totalItbis ?? null,
      fecha_emision: facts.fechaEmision ?? null,
      fecha_firma: facts.fechaFirma ?? null,
      rnc_comprador: facts.rncComprador ?? null,
      id_extranjero: facts.idExtranjero ?? null,
      security_code: input.securityCode ?? null,
      xml: input.xml.toString('utf8'),
    });
  const arrival = (outcome: string | Expression<string>) => arrivalInsert(db, { ...input.arrival, outcome }, now);

  if (!verdict.secuenciaUtilizada) {
    await executePrepared(
      db,
      sql`with stored as (${document(verdict.outcome, JSON.stringify(verdict.mensajes))}), arrived as (${arrival(input.arrival.outcomeOf(verdict))}) select 1`,
    );
    return verdict;
  }
  // Every part sees the same snapshot: whether the e-NCF was burned here is what the `burned` part returned.
  const taken = input.alreadyUsed ?? rejected(usedRefusal(facts.encf));
  const burned = sql<boolean>`exists (select 1 from burned)`;
  // Not where an ANECF voided the number meanwhile (its lock lets this statement in only after it commits).
  const use = sql`
    insert into sandbox_sequence_uses (environment, rnc, encf, used_by, track_id, used_at)
    select ${input.environment}::text, ${facts.rncEmisor}::text, ${facts.encf}::text, ${input.channel}::text,
      ${input.trackId}::text, ${now}::timestamptz
    where not ${isVoided(db, input.environment, facts.rncEmisor, facts.encf)}
    on conflict (environment, rnc, encf) do nothing
    returning encf`;
  const stored = document(
    sql<Verdict['outcome']>`case when ${burned} then ${verdict.outcome}::integer else ${taken.outcome}::integer end`,
    sql<string>`case when ${burned} then ${JSON.stringify(verdict.mensajes)}::jsonb else ${JSON.stringify(taken.mensajes)}::jsonb end`,
  );
  const arrived = arrival(
    sql<string>`case when ${burned} then ${input.arrival.outcomeOf(verdict)} else ${input.arrival.outcomeOf(taken)} end`,
  );
  const result = await executePrepared(
    db,
    sql<{
      burned: boolean;
    }>`with burned as (${use}), stored as (${stored}), arrived as (${arrived}) select ${burned} as burned`,
  );
  return result.rows[0]?.burned === true ? verdict : taken;
}

export type StoredDocument = Omit<SandboxDocumentsTable, 'messages'> & { messages: SandboxMessage[] };

/** Every document received for an e-NCF of an issuer, oldest first. */
export async function documentsFor(
  context: SandboxContext,
  environment: SandboxEnvironment,
  rnc: string,
  encf: string,
  channel?: 'ecf' | 'rfce',
): Promise<StoredDocument[]> {
  let query = context.db
    .selectFrom('sandbox_documents')
    .selectAll()
    .where('environment', '=', environment)
    .where('rnc_emisor', '=', rnc)
    .where('encf', '=', encf);
  if (channel !== undefined) query = query.where('channel', '=', channel);
  return query.orderBy('received_at').execute();
}

/** What consultaresultado shows of a document: all but its XML, which it never shows (and is the bulk of the row). */
export type DocumentResult = Pick<
  StoredDocument,
  'rnc_emisor' | 'encf' | 'rnc_comprador' | 'received_at' | 'ready_at' | 'outcome' | 'secuencia_utilizada' | 'messages'
>;

export async function documentByTrackId(
  context: SandboxContext,
  environment: SandboxEnvironment,
  trackId: string,
): Promise<DocumentResult | undefined> {
  // By the primary key alone, the environment checked here: with `environment = $1` in it too, the generic plan a
  // prepared statement settles on while the table is nearly empty reads the e-NCF index for the environment and
  // filters by trackId, which reads every document of the environment once the table has grown.
  const documents = await executePrepared(
    context.db,
    context.db
      .selectFrom('sandbox_documents')
      .select([
        'environment',
        'rnc_emisor',
        'encf',
        'rnc_comprador',
        'received_at',
        'ready_at',
        'outcome',
        'secuencia_utilizada',
        'messages',
      ])
      .where('track_id', '=', trackId),
  );
  const found = documents.rows[0];
  if (found === undefined || found.environment !== environment) return undefined;
  const { environment: _, ...result } = found;
  return result;
}

export function isReady(context: SandboxContext, document: Pick<StoredDocument, 'ready_at'>): boolean {
  return document.ready_at.getTime() <= context.clock.now().getTime();
}

function isAccepted(document: StoredDocument): boolean {
  return document.outcome === 1 || document.outcome === 4;
}

/**
 * The verdict that stands for an e-NCF: an accepted document, once ready, stays the one on record even if a copy
 * sent later was rejected as a duplicate (that rejection does not void the invoice); otherwise the latest one.
 */
export function standingVerdict(
  context: SandboxContext,
  documents: readonly StoredDocument[],
): StoredDocument | undefined {
  const ready = documents.filter((document) => isReady(context, document));
  return ready.findLast(isAccepted) ?? ready.at(-1);
}

/** Whether an e-NCF of this issuer was accepted (outcome 1 or 4) here, by either channel. */
export async function wasAccepted(
  context: SandboxContext,
  environment: SandboxEnvironment,
  rnc: string,
  encf: string,
): Promise<boolean> {
  const documents = await documentsFor(context, environment, rnc, encf);
  return documents.some(isAccepted);
}

/** What queries show of a stored document: En Proceso (3) until its verdict is ready. */
export function shownCode(
  context: SandboxContext,
  document: Pick<StoredDocument, 'ready_at' | 'outcome'>,
): 1 | 2 | 3 | 4 {
  return isReady(context, document) ? document.outcome : 3;
}

/** Only a session delegated for the issuer (or, where DGII allows it, the buyer) sees a document. */
export async function mayView(
  context: SandboxContext,
  certificateSha256: string,
  document: Pick<StoredDocument, 'rnc_emisor' | 'rnc_comprador'>,
  buyerToo = false,
): Promise<boolean> {
  if (await isDelegated(context, certificateSha256, document.rnc_emisor)) return true;
  return (
    buyerToo &&
    document.rnc_comprador !== null &&
    (await isDelegated(context, certificateSha256, document.rnc_comprador))
  );
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
export function missingParameters(names: readonly string[]): {
  title: string;
  status: 400;
  errors: Record<string, string[]>;
} {
  return {
    title: 'One or more validation errors occurred.',
    status: 400,
    errors: Object.fromEntries(names.map((name) => [name, [`The ${name} field is required.`]])),
  };
}
