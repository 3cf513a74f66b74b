// Authorised e-NCF ranges and the one way numbers are taken from them. A number is taken in order, under the range's
// row lock, and recorded as burned in the same statement; the work it was taken for settles it when what it numbers
// is stored. It is never given twice, and a number whose work failed or stopped stays burned (awaiting annulment),
// so the sequence has no gap that is not accounted for.
import type { OperationNodeSource } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import { formatIsoDate, parseDgiiDate } from '../../fiscal/dates.js';
import type { Clock } from '../../platform/clock.js';
import type { AnyDb, Db } from '../../platform/db/database.js';
import { tablesOf } from '../../platform/db/tables-of.js';
import { transact, type AnyTrx, type Trx } from '../../platform/db/transact.js';
import { recordDomainEvent } from '../../platform/events/domain-events.js';
import { groupCommit } from '../../platform/group-commit.js';
import { fail, ok, type Result } from '../../platform/result.js';
import { newId } from '../../platform/ids.js';
import { createAllocationsService, type AllocationsService, type Numbering } from './allocations.service.js';
import { claimNumber, type ClaimedNumber } from './claim-number.js';
import type { IssuedDocuments } from './issued-documents.js';
import { dgiiDate, encfOf, isoToday, sequenceOf } from './numbers.js';
import { annulmentCounts } from './annulments.repo.js';
import * as repo from './sequences.repo.js';
import type { RangeView, RegisterRange } from './sequences.schema.js';
import type { SequencesTables } from './tables.js';

/** Types whose XSD has no FechaVencimientoSecuencia: their numbers do not expire (Formato e-CF; IT). */
const typesWithoutExpiry: ReadonlySet<string> = new Set(['32', '34']);

export interface SequenceThresholds {
  /** A `sequence.low_stock` event when the numbers left of a type fall to this many. */
  lowStock: number;
  /** A `sequence.expiring` event when a range in use expires within this many days. */
  expiringDays: number;
}

export interface TakenNumber {
  encf: string;
  rangeId: string;
  /** FechaVencimientoSecuencia, dd-MM-yyyy; undefined for types 32 and 34. */
  fechaVencimientoSecuencia: string | undefined;
}

export interface SequencesService {
  registerRange(companyId: string, input: RegisterRange): Promise<Result<RangeView>>;
  listRanges(companyId: string, ecfType?: string): Promise<RangeView[]>;
  getRange(companyId: string, rangeId: string): Promise<Result<RangeView>>;
  /**
   * The next e-NCF of the type, taken in order and at once recorded as burned with `cause` (what it is being taken
   * for): if the work stops before settleNumberStatement, the number stays accounted for and awaits annulment.
   */
  takeNumber(companyId: string, ecfType: string, cause: string): Promise<Result<TakenNumber>>;
  /** Says why a taken number stays burned (its take burned it provisionally: the cause is replaced). It awaits
   * annulment. A number settleNumberStatement already cleared (the work finished, though its caller saw an error)
   * stays used. */
  burnNumber(trx: AnyTrx, companyId: string, taken: TakenNumber, cause: string): Promise<void>;
  /**
   * The write that says the work a number was taken (and provisionally burned) for has finished: it is used, not
   * burned. Unexecuted: it must commit with that work's own writes (sent with them by executeAsOneStatement, or
   * executed in the work's transaction).
   */
  settleNumberStatement(
    executor: AnyDb | AnyTrx,
    companyId: string,
    encf: string,
  ): OperationNodeSource & { execute(): Promise<unknown> };
  /** Offline blocks: contiguous numbers reserved for one device, taken from the ranges the same way. */
  allocations: AllocationsService;
  /** A number signed outside the service, claimed in the caller's transaction when its document is handed in. */
  claimNumber(trx: AnyTrx, companyId: string, encf: string, documentId: string): Promise<Result<ClaimedNumber>>;
}

function daysBetween(fromIso: string, toIso: string): number {
  return Math.round((Date.parse(`${toIso}T00:00:00Z`) - Date.parse(`${fromIso}T00:00:00Z`)) / 86_400_000);
}

interface Counts {
  burned: number;
  reserved: number;
  annulled: number;
  withdrawn: number;
}

function view(row: repo.RangeRow, counts: Counts, today: string): RangeView {
  const total = row.last_number - row.first_number + 1;
  const remaining = row.last_number - row.next_number + 1;
  const expired = row.expires_on !== null && row.expires_on < today;
  const { burned, reserved, annulled, withdrawn } = counts;
  return {
    id: row.id,
    ecfType: row.ecf_type,
    from: encfOf(row.ecf_type, row.first_number),
    to: encfOf(row.ecf_type, row.last_number),
    next: remaining > 0 ? encfOf(row.ecf_type, row.next_number) : null,
    expiresOn: row.expires_on === null ? null : dgiiDate(row.expires_on),
    status: remaining === 0 ? 'exhausted' : expired ? 'expired' : 'active',
    // Every number past next_number went to a document, to a block still reserving it, was burned, or is in an
    // annulment (annulled, or an unissued tail withdrawn while its request stands).
    availability: {
      total,
      used: total - remaining - burned - reserved - annulled - withdrawn,
      reserved,
      burned,
      annulled,
      withdrawn,
      remaining,
    },
    createdAt: row.created_at.toISOString(),
  };
}

export function createSequencesService(deps: {
  db: Db<SequencesTables>;
  clock: Clock;
  environment: FiscalEnvironment;
  thresholds: SequenceThresholds;
  /** Whether a number numbers a document (documents' table, passed in: sequences.module.ts). */
  issued: IssuedDocuments;
}): SequencesService {
  const { db, clock, environment, thresholds, issued } = deps;
  const today = () => isoToday(clock);

  async function views(rows: repo.RangeRow[]): Promise<RangeView[]> {
    const ids = rows.map((row) => row.id);
    const burned = await repo.burnedCounts(db, ids);
    const reserved = await repo.reservedCounts(db, ids);
    const annulments = await annulmentCounts(db, ids);
    const day = today();
    return rows.map((row) =>
      view(
        row,
        {
          burned: burned.get(row.id) ?? 0,
          reserved: reserved.get(row.id) ?? 0,
          annulled: annulments.get(row.id)?.annulled ?? 0,
          withdrawn: annulments.get(row.id)?.withdrawn ?? 0,
        },
        day,
      ),
    );
  }

  function checkRange(input: RegisterRange): Result<{ first: number; last: number; expiresOn: string | null }> {
    const errors = [];
    if (input.from.slice(1, 3) !== input.ecfType)
      errors.push({
        pointer: '/from',
        in: 'body' as const,
        code: 'type_mismatch',
        detail: `${input.from} is not an e-NCF of type ${input.ecfType}.`,
      });
    if (input.to.slice(1, 3) !== input.ecfType)
      errors.push({
        pointer: '/to',
        in: 'body' as const,
        code: 'type_mismatch',
        detail: `${input.to} is not an e-NCF of type ${input.ecfType}.`,
      });
    const first = sequenceOf(input.from);
    const last = sequenceOf(input.to);
    if (first < 1)
      errors.push({
        pointer: '/from',
        in: 'body' as const,
        code: 'out_of_range',
        detail: 'Sequence numbers start at 1.',
      });
    if (last < first)
      errors.push({
        pointer: '/to',
        in: 'body' as const,
        code: 'before_from',
        detail: `${input.to} comes before ${input.from}.`,
      });
    let expiresOn: string | null = null;
    if (typesWithoutExpiry.has(input.ecfType)) {
      if (input.expiresOn !== undefined)
        errors.push({
          pointer: '/expiresOn',
          in: 'body' as const,
          code: 'not_applicable',
          detail: `e-CF ${input.ecfType} has no FechaVencimientoSecuencia.`,
        });
    } else if (input.expiresOn === undefined) {
      errors.push({
        pointer: '/expiresOn',
        in: 'body' as const,
        code: 'missing',
        detail: `e-CF ${input.ecfType} needs its FechaVencimientoSecuencia (dd-MM-yyyy).`,
      });
    } else {
      const date = parseDgiiDate(input.expiresOn);
      if (date === undefined)
        errors.push({
          pointer: '/expiresOn',
          in: 'body' as const,
          code: 'invalid_date',
          detail: `${input.expiresOn} is not a date dd-MM-yyyy.`,
        });
      else expiresOn = formatIsoDate(date);
    }
    if (errors.length > 0) return fail('validation_failed', 'The range is not valid.', errors);
    if (expiresOn !== null && expiresOn < today()) {
      return fail(
        'range_expired',
        `FechaVencimientoSecuencia ${input.expiresOn ?? ''} has passed: DGII's numbers of this range can no longer be used.`,
        [{ pointer: '/expiresOn', in: 'body', code: 'in_the_past', detail: 'The expiry date has passed.' }],
      );
    }
    return ok({ first, last, expiresOn });
  }

  /** Why no range of the type can give a number now; undefined when one can (a competitor's race, look again). */
  async function whyNoNumber(
    executor: Db<SequencesTables> | Trx<SequencesTables>,
    companyId: string,
    ecfType: string,
  ): Promise<Result<never> | undefined> {
    const day = today();
    const all = await repo.listRanges(executor, companyId, environment, ecfType);
    if (all.length === 0)
      return fail(
        'no_range',
        `No authorised range of e-CF ${ecfType} is registered: register the range DGII authorised first.`,
      );
    const withNumbers = all.filter((row) => row.next_number <= row.last_number);
    if (withNumbers.some((row) => row.expires_on === null || row.expires_on >= day)) return undefined;
    if (withNumbers.length > 0)
      return fail(
        'range_expired',
        `Every range of e-CF ${ecfType} with numbers left has expired: register the new range DGII authorised.`,
      );
    return fail(
      'range_exhausted',
      `Every number of the ranges of e-CF ${ecfType} has been used: register the next range DGII authorised.`,
    );
  }

  /** A competitor may use up the range a statement waited for; after this many tries the answer is what is left. */
  const attempts = 3;

  function needsNote(range: repo.RangeRow, rangeRemaining: number): boolean {
    // The type has at least what this range has left, so only a range at or below the threshold can bring the
    // type's total there: the sum over the type is read only then.
    return (
      rangeRemaining <= thresholds.lowStock ||
      (range.expires_on !== null && daysBetween(today(), range.expires_on) <= thresholds.expiringDays)
    );
  }

  const numbering: Numbering = {
    async lockFirstUsable(trx, companyId, ecfType) {
      const usable = { companyId, environment, ecfType, today: today() };
      for (let attempt = 0; attempt < attempts; attempt++) {
        const range = await repo.firstUsableRange(trx, usable);
        if (range !== undefined) return ok(range);
        const why = await whyNoNumber(trx, companyId, ecfType);
        if (why !== undefined) return why;
      }
      return fail(
        'range_exhausted',
        `Every number of the ranges of e-CF ${ecfType} was taken while this request waited: try again.`,
      );
    },

    async noteTaken(trx, companyId, ecfType, range, rangeRemaining) {
      if (!needsNote(range, rangeRemaining)) return;
      const day = today();
      const remaining =
        rangeRemaining <= thresholds.lowStock
          ? await repo.remainingOfType(trx, companyId, environment, ecfType, day)
          : rangeRemaining;
      if (remaining <= thresholds.lowStock) {
        // Once per range crossing the threshold: the range in use names the event.
        await recordDomainEvent(trx, {
          companyId,
          environment,
          type: 'sequence.low_stock',
          payload: { ecfType, remaining, rangeId: range.id },
          dedupeKey: `sequence.low_stock:${range.id}`,
          occurredAt: clock.now(),
        });
        if (remaining === 0)
          await recordDomainEvent(trx, {
            companyId,
            environment,
            type: 'sequence.exhausted',
            payload: { ecfType, rangeId: range.id },
            dedupeKey: `sequence.exhausted:${range.id}`,
            occurredAt: clock.now(),
          });
      }
      if (range.expires_on !== null && daysBetween(day, range.expires_on) <= thresholds.expiringDays) {
        await recordDomainEvent(trx, {
          companyId,
          environment,
          type: 'sequence.expiring',
          payload: { ecfType, rangeId: range.id, expiresOn: dgiiDate(range.expires_on) },
          dedupeKey: `sequence.expiring:${range.id}`,
          occurredAt: clock.now(),
        });
      }
    },
  };

  /**
   * Takes a number for each of `wanted` (all of one company and type), in the order asked, together: one statement
   * for as many as the first usable range has, then the next range for the rest. A range used up by a competitor
   * while a statement waited is looked at again, `attempts` times in a row at most.
   */
  async function takeNumbers(
    wanted: readonly { companyId: string; ecfType: string; cause: string }[],
  ): Promise<Result<TakenNumber>[]> {
    const { companyId, ecfType } = wanted[0] ?? { companyId: '', ecfType: '' };
    const taken: Result<TakenNumber>[] = [];
    for (let misses = 0; taken.length < wanted.length;) {
      const causes = wanted.slice(taken.length).map((entry) => entry.cause);
      const batch = await repo.takeNextAsBurned(db, {
        companyId,
        environment,
        ecfType,
        today: today(),
        causes,
        burnedAt: clock.now(),
      });
      if (batch === undefined) {
        const why =
          (await whyNoNumber(db, companyId, ecfType)) ??
          (++misses < attempts
            ? undefined
            : fail(
                'range_exhausted',
                `Every number of the ranges of e-CF ${ecfType} was taken while this request waited: try again.`,
              ));
        if (why !== undefined) return [...taken, ...causes.map(() => why)];
        continue;
      }
      misses = 0;
      const { range, encfs } = batch;
      const rangeRemaining = range.last_number - range.next_number + 1;
      // The events are recorded just after the numbers, not with them: the take stays one statement. A crash in
      // between loses nothing, because the next number taken from the range records them (once per range).
      if (needsNote(range, rangeRemaining)) {
        await transact(db, async (trx) => {
          await numbering.noteTaken(trx, companyId, ecfType, range, rangeRemaining);
          return ok(undefined);
        });
      }
      const fechaVencimientoSecuencia = range.expires_on === null ? undefined : dgiiDate(range.expires_on);
      for (const encf of encfs) taken.push(ok({ encf, rangeId: range.id, fechaVencimientoSecuencia }));
    }
    return taken;
  }
  // Documents created side by side take their numbers together (platform/group-commit.ts): under load one statement,
  // one lock of the range and one commit serve a batch of them, instead of each queueing for the range's lock.
  const takeTogether = groupCommit(takeNumbers, { maxBatch: 100 });

  const allocations = createAllocationsService({ db, clock, environment, numbering });
  return {
    allocations,
    claimNumber: (trx, companyId, encf, documentId) =>
      claimNumber(
        tablesOf<SequencesTables>(trx),
        { clock, environment, allocations, issued },
        companyId,
        encf,
        documentId,
      ),

    async registerRange(companyId, input) {
      const checked = checkRange(input);
      if (!checked.ok) return checked;
      const { first, last, expiresOn } = checked.value;
      const created = await transact(db, async (trx) => {
        await repo.lockRangesOfType(trx, companyId, environment, input.ecfType);
        const overlapping = await repo.findOverlapping(trx, companyId, environment, input.ecfType, first, last);
        if (overlapping !== undefined) {
          return fail(
            'range_overlaps',
            `${input.from}–${input.to} overlaps the range ${overlapping.id} (${encfOf(overlapping.ecf_type, overlapping.first_number)}–${encfOf(overlapping.ecf_type, overlapping.last_number)}).`,
          );
        }
        return ok(
          await repo.insertRange(trx, {
            id: newId('rng'),
            company_id: companyId,
            environment,
            ecf_type: input.ecfType,
            first_number: first,
            last_number: last,
            next_number: first,
            expires_on: expiresOn,
            created_at: clock.now(),
          }),
        );
      });
      if (!created.ok) return created;
      return ok(view(created.value, { burned: 0, reserved: 0, annulled: 0, withdrawn: 0 }, today()));
    },

    async listRanges(companyId, ecfType) {
      return views(await repo.listRanges(db, companyId, environment, ecfType));
    },

    async getRange(companyId, rangeId) {
      const row = await repo.findRange(db, companyId, environment, rangeId);
      if (row === undefined) return fail('range_not_found', `No sequence range ${rangeId}.`);
      const [found] = await views([row]);
      return found === undefined ? fail('range_not_found', `No sequence range ${rangeId}.`) : ok(found);
    },

    takeNumber: (companyId, ecfType, cause) => takeTogether({ companyId, ecfType, cause }, `${companyId} ${ecfType}`),

    async burnNumber(trx, companyId, taken, cause) {
      await repo.recauseBurned(tablesOf<SequencesTables>(trx), {
        companyId,
        environment,
        encf: taken.encf,
        cause,
        burnedAt: clock.now(),
      });
    },

    settleNumberStatement(executor, companyId, encf) {
      return repo.deleteBurned(tablesOf<SequencesTables>(executor), companyId, environment, encf);
    },
  };
}
