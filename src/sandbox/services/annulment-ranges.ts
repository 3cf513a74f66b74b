// What an ANECF does to the sandbox's state: numbers must lie in ranges DGII authorised to the taxpayer; unused
// ones are voided, kept as spans (state/voided-spans.ts), so reception refuses them later; used ones (by a document,
// or voided before) are left alone and reported. DGII voids any span its format carries (ten digits), so nothing
// here goes number by number: the work grows with the spans and the numbers documents used in them, never with a
// span's length. DT: for type 32 DGII checks both channels (above and below 250k): sequence uses hold both.
import { sql } from 'kysely';
import type { SandboxDb, SandboxEnvironment } from '../state/schema.js';
import { encfOf } from '../../fiscal/encf.js';
import type { SequenceSpan } from './annulment-request.js';

interface Interval {
  from: number;
  to: number;
}

/** The parts of the span that no interval covers; `covering` in ascending order of `from`. */
function uncovered(span: SequenceSpan, covering: readonly Interval[]): SequenceSpan[] {
  const parts: SequenceSpan[] = [];
  let next = span.from;
  for (const interval of covering) {
    if (next > span.to) break;
    if (interval.from > next) parts.push({ type: span.type, from: next, to: Math.min(interval.from - 1, span.to) });
    next = Math.max(next, interval.to + 1);
  }
  if (next <= span.to) parts.push({ type: span.type, from: next, to: span.to });
  return parts;
}

/** The parts of the spans that no authorised range of the taxpayer covers (expired ranges count: voiding them
 * is what one does with numbers that can no longer be used). */
export async function unauthorisedSpans(
  db: SandboxDb,
  environment: SandboxEnvironment,
  rnc: string,
  spans: readonly SequenceSpan[],
): Promise<SequenceSpan[]> {
  const parts: SequenceSpan[] = [];
  for (const span of spans) {
    const ranges = await db
      .selectFrom('sandbox_ranges')
      .select(['first_sequence as from', 'last_sequence as to'])
      .where('environment', '=', environment)
      .where('rnc', '=', rnc)
      .where('type', '=', span.type)
      .where('last_sequence', '>=', span.from)
      .where('first_sequence', '<=', span.to)
      .orderBy('first_sequence')
      .execute();
    parts.push(...uncovered(span, ranges));
  }
  return parts;
}

/** Numbers of a request taken before it: used by documents, or voided by an earlier ANECF. */
export interface TakenRun extends SequenceSpan {
  by: 'document' | 'annulment';
}

export interface VoidOutcome {
  voided: number;
  /** What was taken already, as runs in e-NCF order (runs taken the same way never touch). */
  excepted: TakenRun[];
}

/** The request's spans as disjoint spans in e-NCF order: a number named twice is voided once. */
function union(spans: readonly SequenceSpan[]): SequenceSpan[] {
  const sorted = [...spans].sort((a, b) => a.type.localeCompare(b.type) || a.from - b.from);
  const merged: SequenceSpan[] = [];
  for (const span of sorted) {
    const last = merged.at(-1);
    if (last?.type === span.type && span.from <= last.to + 1) last.to = Math.max(last.to, span.to);
    else merged.push({ ...span });
  }
  return merged;
}

/** What is taken already in the span, as runs in order. */
async function takenIn(
  db: SandboxDb,
  environment: SandboxEnvironment,
  rnc: string,
  span: SequenceSpan,
): Promise<TakenRun[]> {
  const used = await db
    .selectFrom('sandbox_sequence_uses')
    .select('encf')
    .where('environment', '=', environment)
    .where('rnc', '=', rnc)
    // Same type and fixed width: the text order is the number order.
    .where('encf', '>=', encfOf(span.type, span.from))
    .where('encf', '<=', encfOf(span.type, span.to))
    .orderBy('encf')
    .execute();
  const voided = await db
    .selectFrom('sandbox_voided_spans')
    .select(['first_sequence', 'last_sequence'])
    .where('environment', '=', environment)
    .where('rnc', '=', rnc)
    .where('type', '=', span.type)
    .where('first_sequence', '<=', span.to)
    .where('last_sequence', '>=', span.from)
    .execute();
  const runs: TakenRun[] = [
    ...used.map((row): TakenRun => {
      const sequence = Number(row.encf.slice(3));
      return { type: span.type, from: sequence, to: sequence, by: 'document' };
    }),
    ...voided.map((row): TakenRun => ({
      type: span.type,
      from: Math.max(row.first_sequence, span.from),
      to: Math.min(row.last_sequence, span.to),
      by: 'annulment',
    })),
  ].sort((a, b) => a.from - b.from);
  const joined: TakenRun[] = [];
  for (const run of runs) {
    const last = joined.at(-1);
    if (last?.by === run.by && run.from === last.to + 1) last.to = run.to;
    else joined.push(run);
  }
  return joined;
}

const size = (span: SequenceSpan) => span.to - span.from + 1;

/** Each span's free parts and what was taken in it, as of the state `db` sees. */
async function assess(db: SandboxDb, environment: SandboxEnvironment, rnc: string, spans: readonly SequenceSpan[]) {
  const free: SequenceSpan[] = [];
  const excepted: TakenRun[] = [];
  for (const span of union(spans)) {
    const taken = await takenIn(db, environment, rnc, span);
    free.push(...uncovered(span, taken));
    excepted.push(...taken);
  }
  return { free, excepted };
}

/** How many spans one statement inserts (6 parameters each, well under PostgreSQL's 65,535). */
const insertBatch = 1_000;

/** Voids the unused numbers of the spans in one transaction. With `persist` false (the accept_then_lose fault) it
 * answers as if it had, and keeps nothing. */
export async function voidSpans(
  db: SandboxDb,
  environment: SandboxEnvironment,
  rnc: string,
  spans: readonly SequenceSpan[],
  now: Date,
  persist: boolean,
): Promise<VoidOutcome> {
  if (!persist) {
    const { free, excepted } = await assess(db, environment, rnc, spans);
    return { voided: free.reduce((sum, span) => sum + size(span), 0), excepted };
  }
  return db.transaction().execute(async (trx) => {
    // One annulment at a time, and no document's use recorded until this one commits: reception records a use only
    // where no span voids the number (reception-documents.ts), and its statement, let in after this commit, sees
    // these spans. Without the lock a document and an annulment could each take the same number unseen.
    await sql`lock table sandbox_sequence_uses in share row exclusive mode`.execute(trx);
    const { free, excepted } = await assess(trx, environment, rnc, spans);
    for (let start = 0; start < free.length; start += insertBatch) {
      await trx
        .insertInto('sandbox_voided_spans')
        .values(
          free.slice(start, start + insertBatch).map((span) => ({
            environment,
            rnc,
            type: span.type,
            first_sequence: span.from,
            last_sequence: span.to,
            voided_at: now,
          })),
        )
        .execute();
    }
    return { voided: free.reduce((sum, span) => sum + size(span), 0), excepted };
  });
}

/** `E310000000005` or `E310000000005 - E310000000007`. */
export function describeSpan(span: SequenceSpan): string {
  return span.from === span.to
    ? encfOf(span.type, span.from)
    : `${encfOf(span.type, span.from)} - ${encfOf(span.type, span.to)}`;
}

/** `E310000000005 - E310000000007: utilizada`: each run of taken numbers, the first `limit` of them. */
export function describeTaken(taken: readonly TakenRun[], limit: number): string[] {
  const lines = taken
    .slice(0, limit)
    .map((run) => `${describeSpan(run)}: ${run.by === 'annulment' ? 'ya anulada' : 'utilizada'}`);
  if (taken.length > limit) lines.push(`… y ${String(taken.length - limit)} rangos más.`);
  return lines;
}
