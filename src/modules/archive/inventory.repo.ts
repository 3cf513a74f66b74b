// Every archived artefact the database records, of every kind, as one list: documents' artefacts (source, signed
// XML, RFCE, the buyer's ACECF), received documents' (the e-CF received, the ARECF answered, the ACECF sent),
// annulments' ANECF and the certification lane's signed approvals. The verifier reads it in the byte order of the
// keys, beside the store's listing in the same order ("C" collation: the indexes of migration 0023).
import { sql, type RawBuilder } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import type { Db } from '../../platform/db/database.js';
import type { ArchiveTables } from './tables.js';
import { approvalArtefactsInventory } from '../certification/index.js';
import { documentArtefactsInventory } from '../documents/index.js';
import { receivedArtefactsInventory } from '../received/index.js';
import { annulmentArtefactsInventory } from '../sequences/index.js';

export type ArtefactOwner = 'document' | 'received_document' | 'annulment' | 'certification_case';

export interface ArchivedArtefact {
  key: string;
  /** Null for annulments archived before migration 0023 (and sizes of certification approvals). */
  sha256: string | null;
  size: number | null;
  owner: ArtefactOwner;
  ownerId: string;
  kind: string;
  companyId: string;
  environment: FiscalEnvironment;
  createdAt: Date;
  /** The owner's status: the document's, or `received` / `not_received` for a received one. */
  status: string | null;
  /** The row's copy of the XML's fields, for the owner's main XML (signed-xml, received-xml); else null. */
  encf: string | null;
  ecfType: string | null;
  issuerRnc: string | null;
  fechaEmision: string | null;
  montoTotal: string | null;
  fechaHoraFirma: string | null;
  securityCode: string | null;
}

/** Which records a pass covers: a company's, and of those created in a period (inclusive, exclusive). */
export interface InventoryScope {
  companyId?: string;
  createdFrom?: Date;
  createdBefore?: Date;
}

const columns = sql`key, sha256, size, owner, owner_id as "ownerId", kind, company_id as "companyId", environment,
  created_at as "createdAt", status, encf, ecf_type as "ecfType", issuer_rnc as "issuerRnc",
  fecha_emision as "fechaEmision", monto_total as "montoTotal", fecha_hora_firma as "fechaHoraFirma",
  security_code as "securityCode"`;

// One branch per table that records archived files, each its owner's fragment (its SQL on its own tables).
const branches = [
  documentArtefactsInventory(),
  receivedArtefactsInventory(),
  annulmentArtefactsInventory(),
  approvalArtefactsInventory(),
];

const artefacts = sql`(${sql.join(
  branches.map((branch) => sql`select * from ${branch} as branch`),
  sql` union all `,
)}) as artefacts`;

function scopeConditions(scope: InventoryScope): RawBuilder<unknown>[] {
  return [
    ...(scope.companyId === undefined ? [] : [sql`company_id = ${scope.companyId}`]),
    ...(scope.createdFrom === undefined ? [] : [sql`created_at >= ${scope.createdFrom}`]),
    ...(scope.createdBefore === undefined ? [] : [sql`created_at < ${scope.createdBefore}`]),
  ];
}

/** Up to `limit` records whose keys sort after `after` (when given) and start with `prefix`, in key byte order. */
export async function recordsAfter(
  db: Db<ArchiveTables>,
  range: { prefix: string; after: string | undefined },
  scope: InventoryScope,
  limit: number,
): Promise<ArchivedArtefact[]> {
  const conditions = [
    ...(range.prefix === ''
      ? []
      : [sql`key collate "C" >= ${range.prefix}`, sql`key collate "C" < ${prefixEnd(range.prefix)}`]),
    ...(range.after === undefined ? [] : [sql`key collate "C" > ${range.after}`]),
    ...scopeConditions(scope),
  ];
  const where = conditions.length === 0 ? sql`` : sql`where ${sql.join(conditions, sql` and `)}`;
  // A query per table, each an ordered scan of its key index cut at `limit`, merged here: the first `limit` keys of
  // all of them. One ORDER BY over their union would sort every key after `after` on each slice.
  const lists = await Promise.all(
    branches.map(async (branch) => {
      const result = await sql<ArchivedArtefact>`select ${columns} from ${branch} as branch ${where}
        order by key collate "C" limit ${limit}`.execute(db);
      return result.rows.map(normalised);
    }),
  );
  return lists
    .flat()
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .slice(0, limit);
}

/**
 * Records created after the one at (`after.createdAt`, `after.key`) and no later than `until`, oldest first, at most
 * `limit`: the artefacts written since the last look. The key breaks ties: a batch's artefacts share one time.
 */
export async function recordsCreatedBetween(
  db: Db<ArchiveTables>,
  after: { createdAt: Date; key: string },
  until: Date,
  limit: number,
): Promise<ArchivedArtefact[]> {
  const result = await sql<ArchivedArtefact>`select ${columns} from ${artefacts}
    where created_at >= ${after.createdAt} and created_at <= ${until}
      and (created_at > ${after.createdAt} or key collate "C" > ${after.key})
    order by created_at, key collate "C" limit ${limit}`.execute(db);
  return result.rows.map(normalised);
}

/** The first key past every key that starts with `prefix` (keys are printable ASCII, so "\x7f" is past them all). */
export function prefixEnd(prefix: string): string {
  if (prefix === '') return '\x7f';
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

// Raw SQL rows: the union's timestamps come back as the driver gives them.
function normalised(row: ArchivedArtefact): ArchivedArtefact {
  return { ...row, createdAt: new Date(row.createdAt) };
}

/** How many artefacts a scope holds, and their bytes. */
export async function scopeTotals(
  db: Db<ArchiveTables>,
  scope: InventoryScope,
): Promise<{ artefacts: number; bytes: number }> {
  const conditions = scopeConditions(scope);
  const where = conditions.length === 0 ? sql`` : sql`where ${sql.join(conditions, sql` and `)}`;
  const result = await sql<{ count: string; bytes: string | null }>`select count(*) as count, sum(size) as bytes
    from ${artefacts} ${where}`.execute(db);
  return { artefacts: Number(result.rows[0]?.count ?? 0), bytes: Number(result.rows[0]?.bytes ?? 0) };
}
