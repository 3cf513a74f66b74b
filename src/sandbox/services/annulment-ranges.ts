// What an ANECF does to the sandbox's state: numbers must lie in ranges DGII authorised to the taxpayer; unused
// ones are voided (a sequence use by 'annulment', so reception refuses them later); used ones are left alone and
// reported. DT: for type 32 DGII checks both channels (above and below 250k): sequence uses hold both.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { SandboxDb, SandboxEnvironment, SandboxSequenceUsesTable } from '../state/schema.js';
import { encfOf } from '../../fiscal/encf.js';
import type { SequenceSpan } from './annulment-request.js';

/**
 * The sandbox keeps one row per voided number, so one request voids at most this many (DGII allows ten digits;
 * a test range is 10,000,000 numbers, a real gap is a few hundred). Above it the sandbox refuses and says why.
 */
export const maxNumbersPerAnnulment = 1_000_000;

/** The parts of the spans that no authorised range of the taxpayer covers (expired ranges count: voiding them
 * is what one does with numbers that can no longer be used). */
export async function unauthorisedSpans(
  db: SandboxDb,
  environment: SandboxEnvironment,
  rnc: string,
  spans: readonly SequenceSpan[],
): Promise<SequenceSpan[]> {
  const uncovered: SequenceSpan[] = [];
  for (const span of spans) {
    const ranges = await db
      .selectFrom('sandbox_ranges')
      .select(['first_sequence', 'last_sequence'])
      .where('environment', '=', environment)
      .where('rnc', '=', rnc)
      .where('type', '=', span.type)
      .where('last_sequence', '>=', span.from)
      .where('first_sequence', '<=', span.to)
      .orderBy('first_sequence')
      .execute();
    let next = span.from;
    for (const range of ranges) {
      if (next > span.to) break;
      if (range.first_sequence > next) uncovered.push({ type: span.type, from: next, to: range.first_sequence - 1 });
      next = Math.max(next, range.last_sequence + 1);
    }
    if (next <= span.to) uncovered.push({ type: span.type, from: next, to: span.to });
  }
  return uncovered;
}

export interface SequenceTaken {
  encf: string;
  used_by: SandboxSequenceUsesTable['used_by'];
}

export interface VoidOutcome {
  voided: number;
  /** Numbers that were already used (or voided) before this request, in e-NCF order. */
  excepted: SequenceTaken[];
}

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
  const total = spans.reduce((sum, span) => sum + (span.to - span.from + 1), 0);
  if (!persist) {
    const excepted = await takenIn(db, environment, rnc, spans, undefined);
    return { voided: total - excepted.length, excepted };
  }
  // Our own mark on the rows we insert, so "taken before us" is exact even with a concurrent request.
  const annulmentId = `anulacion-${randomUUID()}`;
  return db.transaction().execute(async (trx) => {
    for (const span of spans) {
      await sql`
        insert into sandbox_sequence_uses (environment, rnc, encf, used_by, track_id, used_at)
        select ${environment}::text, ${rnc}::text, ${`E${span.type}`}::text || lpad(n::text, 10, '0'), 'annulment', ${annulmentId}::text, ${now}::timestamptz
        from generate_series(${span.from}::bigint, ${span.to}::bigint) as n
        on conflict do nothing`.execute(trx);
    }
    const excepted = await takenIn(trx, environment, rnc, spans, annulmentId);
    return { voided: total - excepted.length, excepted };
  });
}

async function takenIn(
  db: SandboxDb,
  environment: SandboxEnvironment,
  rnc: string,
  spans: readonly SequenceSpan[],
  except: string | undefined,
): Promise<SequenceTaken[]> {
  const taken: SequenceTaken[] = [];
  for (const span of spans) {
    let query = db
      .selectFrom('sandbox_sequence_uses')
      .select(['encf', 'used_by'])
      .where('environment', '=', environment)
      .where('rnc', '=', rnc)
      // Same type and fixed width: the text order is the number order.
      .where('encf', '>=', encfOf(span.type, span.from))
      .where('encf', '<=', encfOf(span.type, span.to));
    if (except !== undefined)
      query = query.where((eb) => eb.or([eb('track_id', 'is', null), eb('track_id', '!=', except)]));
    taken.push(...(await query.orderBy('encf').execute()));
  }
  return taken;
}

/** `E310000000005 - E310000000007 (utilizadas)`: consecutive numbers taken the same way, as ranges. */
export function describeTaken(taken: readonly SequenceTaken[], limit: number): string[] {
  const runs: { first: string; last: string; usedBy: SequenceTaken['used_by'] }[] = [];
  for (const item of taken) {
    const run = runs.at(-1);
    if (
      run !== undefined &&
      run.usedBy === item.used_by &&
      Number(item.encf.slice(3)) === Number(run.last.slice(3)) + 1 &&
      item.encf.slice(0, 3) === run.last.slice(0, 3)
    ) {
      run.last = item.encf;
    } else {
      runs.push({ first: item.encf, last: item.encf, usedBy: item.used_by });
    }
  }
  const lines = runs.slice(0, limit).map((run) => {
    const span = run.first === run.last ? run.first : `${run.first} - ${run.last}`;
    return `${span}: ${run.usedBy === 'annulment' ? 'ya anulada' : 'utilizada'}`;
  });
  if (runs.length > limit) lines.push(`… y ${String(runs.length - limit)} rangos más.`);
  return lines;
}
