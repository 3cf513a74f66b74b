// The archive's checks as the service runs them: the rolling pass a worker keeps going (with the check of new
// artefacts shortly after they are written), a pass `ecf archive verify` runs, and the findings they leave.
import { randomUUID } from 'node:crypto';
import type { FiscalEnvironment } from '../../config.js';
import type { Db } from '../../platform/db/database.js';
import type { Logger } from '../../platform/observability/logger.js';
import type { Clock } from '../../platform/clock.js';
import { pageLimits, pageOf, startOf } from '../../platform/paging.js';
import { ok, type Result } from '../../platform/result.js';
import { findingKinds } from './artefact-check.js';
import { listFindings, openCountsByKind, type FindingFilter, type FindingRow } from './findings.repo.js';
import { scopeTotals } from './inventory.repo.js';
import * as passes from './passes.repo.js';
import { createPacer, inventoryScopeOf, type PassScope, type SliceResult, type Verifier } from './verifier.js';
import type { ArchiveTables } from './tables.js';

export interface RollingSettings {
  /** A new pass starts when the last one started this long ago. */
  passIntervalMs: number;
  bytesPerSecond: number | undefined;
  leaseMs: number;
  /** How long one tick may verify before it lets the loop rest. */
  tickBudgetMs: number;
  /** New artefacts are checked once they are this old (their transaction has long committed). */
  settleMs: number;
  recentBatch: number;
}

export interface PassReport {
  pass: passes.PassRow;
  failing: SliceResult['failing'];
}

export interface ArchiveService {
  /** One turn of the worker's loop; false when another process holds the verifier's lease. */
  rollingTick(): Promise<boolean>;
  /** Gives the lease up (a stopping worker), so another can continue at once. */
  release(): Promise<void>;
  /** A whole pass over `scope`, as `ecf archive verify` runs it; `onSlice` after every slice. */
  runPass(scope: PassScope, onSlice?: (slice: SliceResult) => void): Promise<PassReport>;
  listFindings(query: FindingQuery): Promise<Result<{ items: FindingView[]; nextCursor: string | null }>>;
  summary(): Promise<ArchiveSummary>;
}

export interface FindingQuery extends FindingFilter {
  limit?: number;
  cursor?: string;
}

export interface FindingView {
  id: string;
  kind: string;
  severity: 'critical' | 'warning';
  title: string;
  detail: string;
  companyId: string | null;
  artefact: { key: string; kind: string | null };
  owner: { type: string; id: string } | null;
  status: 'open' | 'resolved';
  firstSeenAt: string;
  lastSeenAt: string;
  resolvedAt: string | null;
}

export interface PassView {
  id: string;
  startedAt: string;
  completedAt: string | null;
  artefacts: number;
  bytes: number;
  storedObjects: number;
  findings: number;
  /** Artefacts recorded when the pass completed; artefacts/recordedArtefacts is its coverage. */
  recordedArtefacts: number | null;
  coverage: number | null;
}

export interface ArchiveSummary {
  open: number;
  openByKind: Record<string, number>;
  lastCompletePass: PassView | null;
  currentPass: PassView | null;
}

export function createArchiveService(deps: {
  db: Db<ArchiveTables>;
  /** The instance's, recorded with the verifier's lease. */
  environment: FiscalEnvironment;
  clock: Clock;
  log: Logger;
  verifier: Verifier;
  rolling: RollingSettings;
  /** Says which process holds the lease; a new one per process. */
  holder?: string;
}): ArchiveService {
  const { db, clock, log, verifier, rolling } = deps;
  const holder = deps.holder ?? `verifier-${randomUUID()}`;
  // Whether this process held the lease at its last look: taking it up is logged once, not every tick.
  let holding = false;

  /** Takes or renews the lease before each batch and slice; false when another process holds it. */
  async function hold(): Promise<boolean> {
    const held = await passes.takeLease(db, deps.environment, holder, clock.now(), rolling.leaseMs);
    if (held && !holding) log.info({ holder }, 'archive verification taken up by this process');
    holding = held;
    return held;
  }

  /** Checks what was written since the mark, batch after batch while the tick's budget lasts: a busy service's
   * new files are checked as fast as they come, not a batch a tick. */
  async function checkRecent(pacer: ReturnType<typeof createPacer>, started: number): Promise<void> {
    for (;;) {
      const mark = await passes.recentMark(db);
      const until = new Date(clock.now().getTime() - rolling.settleMs);
      const { checked } = await verifier.verifyRecent(mark, until, rolling.recentBatch, pacer);
      const last = checked.at(-1);
      if (last === undefined) return;
      const moved = await passes.advanceRecent(db, holder, { createdAt: last.createdAt, key: last.key }, clock.now());
      if (!moved || checked.length < rolling.recentBatch) return;
      if (performance.now() - started >= rolling.tickBudgetMs) return;
      // The lease is renewed before each further batch, as before each slice of a pass.
      if (!(await hold())) return;
    }
  }

  /** The rolling pass under way, or one started now when the last began long enough ago. */
  async function passDue(): Promise<passes.PassRow | undefined> {
    const open = await passes.openRollingPass(db);
    if (open !== undefined) return open;
    const last = await passes.lastCompletedPass(db, 'rolling');
    const now = clock.now();
    if (last !== undefined && now.getTime() - last.started_at.getTime() < rolling.passIntervalMs) return undefined;
    const started = await passes.startRollingPass(db, holder, now);
    if (started !== undefined) log.info({ pass: started.id, holder }, 'archive pass started');
    return started;
  }

  /** Completes a pass; with a holder, only while its lease runs. Whether this call completed it. */
  async function finish(
    pass: passes.PassRow,
    scope: PassScope,
    held: { holder: string } | undefined,
  ): Promise<boolean> {
    const recorded = (await scopeTotals(db, inventoryScopeOf(scope))).artefacts;
    return passes.completePass(db, pass.id, clock.now(), recorded, held);
  }

  return {
    async rollingTick() {
      const started = performance.now();
      if (!(await hold())) return false;
      const pacer = createPacer(rolling.bytesPerSecond);
      await checkRecent(pacer, started);
      const pass = await passDue();
      if (pass === undefined) return true;
      let position = pass.position ?? undefined;
      // At least one slice a tick, then more while the tick's budget lasts.
      for (;;) {
        // The lease is renewed before each slice, and the slice counts only if it still held when it is recorded.
        if (!(await hold())) return false;
        const slice = await verifier.verifySlice({}, position, pacer);
        const moved = await passes.advancePass(db, pass.id, progressOf(slice, position), {
          holder,
          now: clock.now(),
        });
        if (!moved) {
          holding = false;
          return false;
        }
        position = slice.through;
        if (slice.done) {
          if (await finish(pass, {}, { holder })) log.info({ pass: pass.id, holder }, 'archive pass complete');
          break;
        }
        if (performance.now() - started >= rolling.tickBudgetMs) break;
      }
      return true;
    },

    async release() {
      holding = false;
      await passes.releaseLease(db, holder);
    },

    async runPass(scope, onSlice) {
      const pass = await passes.startPass(db, 'command', { ...scope }, clock.now());
      const pacer = createPacer(undefined);
      const failing: SliceResult['failing'] = [];
      let position: string | undefined;
      for (;;) {
        const slice = await verifier.verifySlice(scope, position, pacer);
        await passes.advancePass(db, pass.id, progressOf(slice, position), undefined);
        failing.push(...slice.failing);
        onSlice?.(slice);
        position = slice.through;
        if (slice.done) break;
      }
      await finish(pass, scope, undefined);
      const done = await passes.passById(db, pass.id);
      return { pass: done ?? pass, failing };
    },

    async listFindings(query) {
      const after = startOf(query.cursor);
      if (!after.ok) return after;
      const limit = query.limit ?? pageLimits.default;
      const rows = await listFindings(db, query, after.value, limit);
      const page = pageOf(rows, limit, (row) => row.first_seen_at);
      return ok({ items: page.rows.map(findingView), nextCursor: page.nextCursor });
    },

    async summary() {
      const openByKind = await openCountsByKind(db);
      const last = await passes.lastCompletedPass(db, 'rolling');
      const current = await passes.openRollingPass(db);
      return {
        open: Object.values(openByKind).reduce((sum, count) => sum + count, 0),
        openByKind,
        lastCompletePass: last === undefined ? null : passView(last),
        currentPass: current === undefined ? null : passView(current),
      };
    },
  };
}

function progressOf(slice: SliceResult, position: string | undefined): passes.PassProgress {
  return {
    position: slice.through ?? position ?? '',
    artefacts: slice.artefacts,
    bytes: slice.bytes,
    storedObjects: slice.storedObjects,
    findings: slice.failing.reduce((sum, verdict) => sum + verdict.failures.length, 0),
  };
}

function findingView(row: FindingRow): FindingView {
  const known = findingKinds[row.kind as keyof typeof findingKinds] as { title: string } | undefined;
  return {
    id: row.id,
    kind: row.kind,
    severity: row.severity === 'warning' ? 'warning' : 'critical',
    title: known?.title ?? row.kind,
    detail: row.detail,
    companyId: row.company_id,
    artefact: { key: row.blob_key, kind: row.artefact_kind },
    owner: row.owner === null || row.owner_id === null ? null : { type: row.owner, id: row.owner_id },
    status: row.resolved_at === null ? 'open' : 'resolved',
    firstSeenAt: row.first_seen_at.toISOString(),
    lastSeenAt: row.last_seen_at.toISOString(),
    resolvedAt: row.resolved_at?.toISOString() ?? null,
  };
}

export function passView(row: passes.PassRow): PassView {
  const artefacts = row.artefacts;
  const recorded = row.recorded_artefacts;
  return {
    id: row.id,
    startedAt: row.started_at.toISOString(),
    completedAt: row.completed_at?.toISOString() ?? null,
    artefacts,
    bytes: row.bytes,
    storedObjects: row.stored_objects,
    findings: row.findings,
    recordedArtefacts: recorded,
    coverage: recorded === null ? null : recorded === 0 ? 1 : Math.min(1, artefacts / recorded),
  };
}
