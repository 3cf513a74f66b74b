// What the audit export reads: a company's documents, received documents and annulments of a period, one page at a
// time in (time, id) order, and the artefacts of a page in one query. Each page is a range of the section's listing
// index, (company, environment, time desc, id desc), read backwards: a page costs the same on the first day of ten
// years of archive as on the last.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import type { Db } from '../../platform/db/database.js';
import type { ArtefactKind, DocumentsTables } from '../documents/index.js';
import type { ReceivedArtefactKind, ReceivedTables } from '../received/index.js';
import type { ArchiveTables } from './tables.js';
import { companySummary } from '../companies/index.js';
import type { SequencesTables } from '../sequences/index.js';

/** GMT-4 calendar days as instants: [start, end). */
export interface Period {
  start: Date;
  end: Date;
}

/** Where the previous page ended. */
export interface PagePosition {
  at: Date;
  id: string;
}

export interface Scope {
  companyId: string;
  environment: FiscalEnvironment;
  period: Period;
}

/** An artefact as recorded: its bytes are in the blob store under `blob_key`. */
export interface RecordedArtefact {
  kind: ArtefactKind | ReceivedArtefactKind;
  version: number;
  blob_key: string;
  sha256: string;
  size: number;
  content_type: string;
  created_at: Date;
}

export interface AnnulledSpan {
  ecf_type: string;
  first_number: number;
  last_number: number;
}

export type Section = 'documents' | 'received' | 'annulments';

const timeColumns = { documents: 'created_at', received: 'received_at', annulments: 'created_at' } as const;

function newerThan(position: PagePosition | undefined, timeColumn: string): RawBuilder<SqlBool> {
  return position === undefined
    ? sql<SqlBool>`true`
    : sql<SqlBool>`(${sql.ref(timeColumn)}, id) > (${position.at}, ${position.id})`;
}

export function findCompany(
  db: Db<ArchiveTables & DocumentsTables & ReceivedTables & SequencesTables>,
  companyId: string,
) {
  return companySummary(db, companyId);
}

/** How many rows of a section the period holds in one environment. */
export async function countInPeriod(
  db: Db<ArchiveTables & DocumentsTables & ReceivedTables & SequencesTables>,
  section: Section,
  scope: Scope,
): Promise<number> {
  const table = section === 'received' ? 'received_documents' : section;
  const time = timeColumns[section];
  const { rows } = await sql<{ count: string }>`
    select count(*)::text as count from ${sql.table(table)}
    where company_id = ${scope.companyId} and environment = ${scope.environment}
      and ${sql.ref(time)} >= ${scope.period.start} and ${sql.ref(time)} < ${scope.period.end}`.execute(db);
  return Number(rows[0]?.count ?? 0);
}

export function documentsPage(
  db: Db<ArchiveTables & DocumentsTables & ReceivedTables & SequencesTables>,
  scope: Scope,
  after: PagePosition | undefined,
  limit: number,
) {
  return db
    .selectFrom('documents')
    .select([
      'id',
      'encf',
      'ecf_type',
      'status',
      'fecha_emision',
      'rnc_comprador',
      'created_at',
      'track_id',
      'dgii_estado',
    ])
    .where('company_id', '=', scope.companyId)
    .where('environment', '=', scope.environment)
    .where('created_at', '>=', scope.period.start)
    .where('created_at', '<', scope.period.end)
    .where(newerThan(after, 'created_at'))
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

export function receivedPage(
  db: Db<ArchiveTables & DocumentsTables & ReceivedTables & SequencesTables>,
  scope: Scope,
  after: PagePosition | undefined,
  limit: number,
) {
  return db
    .selectFrom('received_documents')
    .select([
      'id',
      'issuer_rnc',
      'encf',
      'ecf_type',
      'status',
      'commercial_status',
      'rnc_comprador',
      'fecha_emision',
      'received_at',
    ])
    .where('company_id', '=', scope.companyId)
    .where('environment', '=', scope.environment)
    .where('received_at', '>=', scope.period.start)
    .where('received_at', '<', scope.period.end)
    .where(newerThan(after, 'received_at'))
    .orderBy('received_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

export function annulmentsPage(
  db: Db<ArchiveTables & DocumentsTables & ReceivedTables & SequencesTables>,
  scope: Scope,
  after: PagePosition | undefined,
  limit: number,
) {
  return db
    .selectFrom('annulments')
    .select(['id', 'status', 'total', 'blob_key', 'dgii_estado', 'created_at'])
    .where('company_id', '=', scope.companyId)
    .where('environment', '=', scope.environment)
    .where('created_at', '>=', scope.period.start)
    .where('created_at', '<', scope.period.end)
    .where(newerThan(after, 'created_at'))
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The artefacts of a page of documents, by document id, each document's in (kind, version) order. */
export async function documentArtefacts(
  db: Db<ArchiveTables & DocumentsTables & ReceivedTables & SequencesTables>,
  ids: readonly string[],
): Promise<Map<string, RecordedArtefact[]>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('document_artefacts')
    .select(['document_id as owner', 'kind', 'version', 'blob_key', 'sha256', 'size', 'content_type', 'created_at'])
    .where('document_id', 'in', ids)
    .orderBy('document_id')
    .orderBy('kind')
    .orderBy('version')
    .execute();
  return groupByOwner(rows);
}

export async function receivedArtefacts(
  db: Db<ArchiveTables & DocumentsTables & ReceivedTables & SequencesTables>,
  ids: readonly string[],
): Promise<Map<string, RecordedArtefact[]>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('received_artefacts')
    .select([
      'received_document_id as owner',
      'kind',
      'version',
      'blob_key',
      'sha256',
      'size',
      'content_type',
      'created_at',
    ])
    .where('received_document_id', 'in', ids)
    .orderBy('received_document_id')
    .orderBy('kind')
    .orderBy('version')
    .execute();
  return groupByOwner(rows);
}

/** The numbers each annulment of a page covers, by annulment id, in (type, first number) order. */
export async function annulmentSpans(
  db: Db<ArchiveTables & DocumentsTables & ReceivedTables & SequencesTables>,
  ids: readonly string[],
): Promise<Map<string, AnnulledSpan[]>> {
  const spans = new Map<string, AnnulledSpan[]>();
  if (ids.length === 0) return spans;
  const rows = await db
    .selectFrom('annulment_spans')
    .select(['annulment_id', 'ecf_type', 'first_number', 'last_number'])
    .where('annulment_id', 'in', ids)
    .orderBy('annulment_id')
    .orderBy('ecf_type')
    .orderBy('first_number')
    .execute();
  for (const { annulment_id, ...span } of rows) {
    const list = spans.get(annulment_id);
    if (list === undefined) spans.set(annulment_id, [span]);
    else list.push(span);
  }
  return spans;
}

function groupByOwner(rows: readonly (RecordedArtefact & { owner: string })[]): Map<string, RecordedArtefact[]> {
  const byOwner = new Map<string, RecordedArtefact[]>();
  for (const { owner, ...artefact } of rows) {
    const list = byOwner.get(owner);
    if (list === undefined) byOwner.set(owner, [artefact]);
    else list.push(artefact);
  }
  return byOwner;
}
