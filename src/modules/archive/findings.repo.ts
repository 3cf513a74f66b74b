// Findings of the archive verifier: opened when a check fails, seen again while it keeps failing, resolved (never
// deleted) when a later check of the same key passes. Each change is recorded with its webhook event to the company
// the artefact belongs to, in the same transaction.
import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import type { ArchiveFindingsTable, ArchiveTables } from './tables.js';
import type { Trx } from '../../platform/db/transact.js';
import { recordDomainEvent } from '../../platform/events/domain-events.js';
import { newId } from '../../platform/ids.js';
import type { CursorPosition } from '../../platform/paging.js';
import { findingKinds, type Failure } from './artefact-check.js';
import type { ArchivedArtefact } from './inventory.repo.js';

export type FindingRow = ArchiveFindingsTable;

/** One key's verdict: what it belongs to (a record, or for an orphan only the key) and what failed, if anything. */
export interface KeyVerdict {
  key: string;
  artefact: ArchivedArtefact | undefined;
  failures: readonly Failure[];
}

export interface Outcome {
  opened: FindingRow[];
  resolved: FindingRow[];
}

/**
 * Records the verdicts of the keys checked. `listedRange`: the key range whose store listing this check read in
 * full (a slice of a pass), so an open orphan finding in it whose blob the listing no longer shows is resolved.
 */
export async function recordVerdicts(
  db: Db<ArchiveTables>,
  verdicts: readonly KeyVerdict[],
  now: Date,
  listedRange?: { after: string | undefined; through: string; listed: readonly string[] },
): Promise<Outcome> {
  if (verdicts.length === 0 && listedRange === undefined) return { opened: [], resolved: [] };
  return db.transaction().execute(async (trx) => {
    const opened: FindingRow[] = [];
    for (const verdict of verdicts) {
      for (const failure of verdict.failures) {
        const row = await sql<FindingRow & { inserted: boolean }>`
          insert into archive_findings (id, kind, severity, company_id, environment, blob_key, owner, owner_id,
            artefact_kind, detail, first_seen_at, last_seen_at)
          values (${newId('afn')}, ${failure.kind}, ${findingKinds[failure.kind].severity},
            ${verdict.artefact?.companyId ?? companyOfKey(verdict.key)}, ${verdict.artefact?.environment ?? null},
            ${verdict.key}, ${verdict.artefact?.owner ?? null}, ${verdict.artefact?.ownerId ?? null},
            ${verdict.artefact?.kind ?? null}, ${failure.detail}, ${now}, ${now})
          on conflict (blob_key, kind) where resolved_at is null
          do update set last_seen_at = excluded.last_seen_at, detail = excluded.detail
          returning *, (xmax = 0) as inserted`.execute(trx);
        const found = row.rows[0];
        if (found?.inserted === true) {
          const { inserted: _inserted, ...finding } = found;
          opened.push(finding);
        }
      }
    }
    const failing = verdicts.flatMap((verdict) => verdict.failures.map((failure) => `${verdict.key} ${failure.kind}`));
    const checked = verdicts.map((verdict) => verdict.key);
    const resolved =
      checked.length === 0
        ? []
        : (
            await sql<FindingRow>`update archive_findings set resolved_at = ${now}
              where resolved_at is null and blob_key = any(${checked}::text[])
                and not (blob_key || ' ' || kind = any(${failing}::text[]))
              returning *`.execute(trx)
          ).rows;
    if (listedRange !== undefined) {
      const vanished = await sql<FindingRow>`update archive_findings set resolved_at = ${now}
        where resolved_at is null and kind = 'orphan_blob'
          and (${listedRange.after ?? null}::text is null or blob_key collate "C" > ${listedRange.after ?? null})
          and blob_key collate "C" <= ${listedRange.through}
          and not (blob_key = any(${listedRange.listed}::text[]))
        returning *`.execute(trx);
      resolved.push(...vanished.rows);
    }
    for (const finding of opened) await recordEvent(trx, 'archive.finding_opened', finding, now);
    for (const finding of resolved) await recordEvent(trx, 'archive.finding_resolved', finding, now);
    return { opened, resolved };
  });
}

async function recordEvent(
  trx: Trx<ArchiveTables>,
  type: 'archive.finding_opened' | 'archive.finding_resolved',
  finding: FindingRow,
  now: Date,
): Promise<void> {
  // Orphans belong to no record, and so to no company's webhooks.
  if (finding.company_id === null || finding.environment === null) return;
  await recordDomainEvent(trx, {
    companyId: finding.company_id,
    environment: finding.environment,
    type,
    payload: {
      findingId: finding.id,
      kind: finding.kind,
      severity: finding.severity,
      detail: finding.detail,
      artefact: { key: finding.blob_key, kind: finding.artefact_kind },
      owner: finding.owner === null || finding.owner_id === null ? null : { type: finding.owner, id: finding.owner_id },
    },
    dedupeKey: `${type}:${finding.id}`,
    occurredAt: now,
  });
}

/** Keys are `<family>/<companyId>/…`: an orphan's company, when its key says one. */
export function companyOfKey(key: string): string | null {
  const company = key.split('/')[1];
  return company !== undefined && /^cmp_[A-Za-z0-9]+$/.test(company) ? company : null;
}

export interface FindingFilter {
  kind?: string;
  status?: 'open' | 'resolved';
  companyId?: string;
  since?: Date;
}

/** Newest first by when first seen; `limit + 1` rows, for pageOf. */
export async function listFindings(
  db: Db<ArchiveTables>,
  filter: FindingFilter,
  after: CursorPosition | undefined,
  limit: number,
): Promise<FindingRow[]> {
  let query = db.selectFrom('archive_findings').selectAll();
  if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind);
  if (filter.status === 'open') query = query.where('resolved_at', 'is', null);
  if (filter.status === 'resolved') query = query.where('resolved_at', 'is not', null);
  if (filter.companyId !== undefined) query = query.where('company_id', '=', filter.companyId);
  if (filter.since !== undefined) query = query.where('first_seen_at', '>=', filter.since);
  if (after !== undefined)
    query = query.where((eb) =>
      eb.or([
        eb('first_seen_at', '<', after.createdAt),
        eb.and([eb('first_seen_at', '=', after.createdAt), eb('id', '<', after.id)]),
      ]),
    );
  return query
    .orderBy('first_seen_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
}

export async function openCountsByKind(db: Db<ArchiveTables>): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('archive_findings')
    .select(['kind', (eb) => eb.fn.countAll<string>().as('count')])
    .where('resolved_at', 'is', null)
    .groupBy('kind')
    .execute();
  return Object.fromEntries(rows.map((row) => [row.kind, Number(row.count)]));
}
