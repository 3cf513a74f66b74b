// The verifier's state in the database, so that any process can continue it: its lease (one verifier at a time,
// across processes), how far the check of new artefacts has come, and the passes over the whole archive with the
// last key each has verified.
import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import type { Selectable } from 'kysely';
import type { ArchivePassesTable } from '../../platform/db/schema.js';
import { newId } from '../../platform/ids.js';

export type PassRow = Selectable<ArchivePassesTable>;

/** Takes or renews the lease; false while another holder's lease runs. */
export async function takeLease(db: Db, holder: string, now: Date, leaseMs: number): Promise<boolean> {
  const result = await db
    .updateTable('archive_verifier')
    .set({ holder, lease_until: new Date(now.getTime() + leaseMs) })
    .where('id', '=', 1)
    .where((eb) => eb.or([eb('holder', '=', holder), eb('holder', 'is', null), eb('lease_until', '<', now)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function releaseLease(db: Db, holder: string): Promise<void> {
  await db
    .updateTable('archive_verifier')
    .set({ holder: null, lease_until: null })
    .where('id', '=', 1)
    .where('holder', '=', holder)
    .execute();
}

export interface RecentMark {
  createdAt: Date;
  key: string;
}

export async function recentMark(db: Db): Promise<RecentMark> {
  const row = await db
    .selectFrom('archive_verifier')
    .select(['recent_after', 'recent_key'])
    .where('id', '=', 1)
    .executeTakeFirst();
  return { createdAt: row?.recent_after ?? new Date(0), key: row?.recent_key ?? '' };
}

/** Moves the mark of new artefacts checked, only while `holder` holds the lease. */
export async function advanceRecent(db: Db, holder: string, to: RecentMark, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('archive_verifier')
    .set({ recent_after: to.createdAt, recent_key: to.key })
    .where('id', '=', 1)
    .where('holder', '=', holder)
    .where('lease_until', '>', now)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function startPass(
  db: Db,
  origin: PassRow['origin'],
  scope: Record<string, unknown>,
  now: Date,
): Promise<PassRow> {
  const row = await db
    .insertInto('archive_passes')
    .values({ id: newId('aps'), origin, scope: JSON.stringify(scope), started_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  return row;
}

/** The rolling pass under way, if any. */
export async function openRollingPass(db: Db): Promise<PassRow | undefined> {
  const row = await db
    .selectFrom('archive_passes')
    .selectAll()
    .where('origin', '=', 'rolling')
    .where('completed_at', 'is', null)
    .orderBy('started_at', 'desc')
    .executeTakeFirst();
  return row;
}

export async function lastCompletedPass(db: Db, origin?: PassRow['origin']): Promise<PassRow | undefined> {
  let query = db.selectFrom('archive_passes').selectAll().where('completed_at', 'is not', null);
  if (origin !== undefined) query = query.where('origin', '=', origin);
  const row = await query.orderBy('completed_at', 'desc').executeTakeFirst();
  return row;
}

export interface PassProgress {
  position: string;
  artefacts: number;
  bytes: number;
  storedObjects: number;
  findings: number;
}

/**
 * Records a slice done: the pass's position moves to its last key and its counts grow. With a `holder`, only while
 * that holder's lease runs (a verifier that lost its lease cannot move a pass another one continues); false then.
 */
export async function advancePass(
  db: Db,
  id: string,
  progress: PassProgress,
  lease: { holder: string; now: Date } | undefined,
): Promise<boolean> {
  const result = await sql`update archive_passes set position = ${progress.position},
      artefacts = artefacts + ${progress.artefacts}, bytes = bytes + ${progress.bytes},
      stored_objects = stored_objects + ${progress.storedObjects}, findings = findings + ${progress.findings}
    where id = ${id} and completed_at is null
      and (${lease?.holder ?? null}::text is null or exists (select 1 from archive_verifier
        where id = 1 and holder = ${lease?.holder ?? null} and lease_until > ${lease?.now ?? null}))`.execute(db);
  return (result.numAffectedRows ?? 0n) > 0n;
}

export async function completePass(db: Db, id: string, now: Date, recordedArtefacts: number): Promise<void> {
  await db
    .updateTable('archive_passes')
    .set({ completed_at: now, recorded_artefacts: recordedArtefacts })
    .where('id', '=', id)
    .execute();
}

export async function passById(db: Db, id: string): Promise<PassRow | undefined> {
  return db.selectFrom('archive_passes').selectAll().where('id', '=', id).executeTakeFirst();
}
