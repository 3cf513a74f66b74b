// The verifier's state in the database, so that any process can continue it: how far the check of new artefacts has
// come, and the passes over the whole archive with the last key each has verified. One verifier at a time, across
// processes: it holds the engine's lease (platform/work lease.repo.ts), and its writes count only while it does.
import { sql } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import type { Db } from '../../platform/db/database.js';
import type { Selectable } from 'kysely';
import type { ArchivePassesTable, ArchiveTables } from './tables.js';
import { newId } from '../../platform/ids.js';
import * as lease from '../../platform/work/lease.repo.js';

export type PassRow = Selectable<ArchivePassesTable>;

/** The verifier's lease: one item of its own, whatever the environment. */
const verifierLease = { target: 'archive.verifier', itemId: 'rolling' } as const;

/** Takes or renews the lease; false while another holder's lease runs. */
export function takeLease(
  db: Db<ArchiveTables>,
  environment: FiscalEnvironment,
  holder: string,
  now: Date,
  leaseMs: number,
): Promise<boolean> {
  return lease.takeLease(
    db,
    { ...verifierLease, environment },
    { leaseId: holder, now, until: new Date(now.getTime() + leaseMs) },
  );
}

export function releaseLease(db: Db<ArchiveTables>, holder: string): Promise<void> {
  return lease.releaseLease(db, verifierLease, holder);
}

export interface RecentMark {
  createdAt: Date;
  key: string;
}

export async function recentMark(db: Db<ArchiveTables>): Promise<RecentMark> {
  const row = await db
    .selectFrom('archive_verifier')
    .select(['recent_after', 'recent_key'])
    .where('id', '=', 1)
    .executeTakeFirst();
  return { createdAt: row?.recent_after ?? new Date(0), key: row?.recent_key ?? '' };
}

/** Moves the mark of new artefacts checked, only while `holder` holds the lease. */
export async function advanceRecent(
  db: Db<ArchiveTables>,
  holder: string,
  to: RecentMark,
  now: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('archive_verifier')
    .set({ recent_after: to.createdAt, recent_key: to.key })
    .where('id', '=', 1)
    .where(lease.leaseHeld(verifierLease, { leaseId: holder, now }))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Starts a pass `ecf archive verify` runs. */
export async function startPass(
  db: Db<ArchiveTables>,
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

/**
 * Starts the rolling pass, only while `holder` holds the lease and no rolling pass is under way (at most one is:
 * migration 0031); undefined when it did not.
 */
export async function startRollingPass(db: Db<ArchiveTables>, holder: string, now: Date): Promise<PassRow | undefined> {
  const result = await sql<PassRow>`
    insert into archive_passes (id, origin, scope, started_at)
    select ${newId('aps')}, 'rolling', '{}'::jsonb, ${now}
    where ${lease.leaseHeld(verifierLease, { leaseId: holder, now })}
    on conflict (origin) where origin = 'rolling' and completed_at is null do nothing
    returning *`.execute(db);
  return result.rows[0];
}

/** The rolling pass under way, if any. */
export async function openRollingPass(db: Db<ArchiveTables>): Promise<PassRow | undefined> {
  const row = await db
    .selectFrom('archive_passes')
    .selectAll()
    .where('origin', '=', 'rolling')
    .where('completed_at', 'is', null)
    .orderBy('started_at', 'desc')
    .executeTakeFirst();
  return row;
}

export async function lastCompletedPass(
  db: Db<ArchiveTables>,
  origin?: PassRow['origin'],
): Promise<PassRow | undefined> {
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
  db: Db<ArchiveTables>,
  id: string,
  progress: PassProgress,
  held: { holder: string; now: Date } | undefined,
): Promise<boolean> {
  const result = await sql`update archive_passes set position = ${progress.position},
      artefacts = artefacts + ${progress.artefacts}, bytes = bytes + ${progress.bytes},
      stored_objects = stored_objects + ${progress.storedObjects}, findings = findings + ${progress.findings}
    where id = ${id} and completed_at is null
      and ${held === undefined ? sql`true` : lease.leaseHeld(verifierLease, { leaseId: held.holder, now: held.now })}`.execute(
    db,
  );
  return (result.numAffectedRows ?? 0n) > 0n;
}

/**
 * Completes a pass under way; with a `holder`, only while that holder's lease runs. Whether this call completed it
 * (a pass completes once).
 */
export async function completePass(
  db: Db<ArchiveTables>,
  id: string,
  now: Date,
  recordedArtefacts: number,
  held: { holder: string } | undefined,
): Promise<boolean> {
  const result = await db
    .updateTable('archive_passes')
    .set({ completed_at: now, recorded_artefacts: recordedArtefacts })
    .where('id', '=', id)
    .where('completed_at', 'is', null)
    .where(held === undefined ? sql<boolean>`true` : lease.leaseHeld(verifierLease, { leaseId: held.holder, now }))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function passById(db: Db<ArchiveTables>, id: string): Promise<PassRow | undefined> {
  return db.selectFrom('archive_passes').selectAll().where('id', '=', id).executeTakeFirst();
}
