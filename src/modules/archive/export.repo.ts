// What the audit export reads: a company's documents, received documents and annulments of a period, one page at a
// time in (time, id) order (platform/db/period-pages.ts), and the artefacts of a page in one query. Each section is
// read through the module that owns its tables (docs/architecture.md): documents, received, sequences.
import type { Db } from '../../platform/db/database.js';
import type { PagePosition, Period, PeriodScope } from '../../platform/db/period-pages.js';
import {
  artefactsOfDocuments,
  documentsInPeriodCount,
  documentsInPeriodPage,
  type ArtefactKind,
} from '../documents/index.js';
import {
  artefactsOfReceived,
  receivedInPeriodCount,
  receivedInPeriodPage,
  type ReceivedArtefactKind,
} from '../received/index.js';
import { annulmentsInPeriodCount, annulmentsInPeriodPage, spansOfAnnulments } from '../sequences/index.js';
import type { ArchiveTables } from './tables.js';
import { companySummary } from '../companies/index.js';

export type { PagePosition, Period };
export type Scope = PeriodScope;

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

export function findCompany(db: Db<ArchiveTables>, companyId: string) {
  return companySummary(db, companyId);
}

/** How many rows of a section the period holds in one environment. */
export function countInPeriod(db: Db<ArchiveTables>, section: Section, scope: Scope): Promise<number> {
  switch (section) {
    case 'documents':
      return documentsInPeriodCount(db, scope);
    case 'received':
      return receivedInPeriodCount(db, scope);
    case 'annulments':
      return annulmentsInPeriodCount(db, scope);
  }
}

export function documentsPage(db: Db<ArchiveTables>, scope: Scope, after: PagePosition | undefined, limit: number) {
  return documentsInPeriodPage(db, scope, after, limit);
}

export function receivedPage(db: Db<ArchiveTables>, scope: Scope, after: PagePosition | undefined, limit: number) {
  return receivedInPeriodPage(db, scope, after, limit);
}

export function annulmentsPage(db: Db<ArchiveTables>, scope: Scope, after: PagePosition | undefined, limit: number) {
  return annulmentsInPeriodPage(db, scope, after, limit);
}

/** The artefacts of a page of documents, by document id, each document's in (kind, version) order. */
export async function documentArtefacts(
  db: Db<ArchiveTables>,
  ids: readonly string[],
): Promise<Map<string, RecordedArtefact[]>> {
  return groupBy(await artefactsOfDocuments(db, ids), ({ document_id: owner, ...artefact }) => [owner, artefact]);
}

export async function receivedArtefacts(
  db: Db<ArchiveTables>,
  ids: readonly string[],
): Promise<Map<string, RecordedArtefact[]>> {
  return groupBy(await artefactsOfReceived(db, ids), ({ received_document_id: owner, ...artefact }) => [
    owner,
    artefact,
  ]);
}

/** The numbers each annulment of a page covers, by annulment id, in (type, first number) order. */
export async function annulmentSpans(
  db: Db<ArchiveTables>,
  ids: readonly string[],
): Promise<Map<string, AnnulledSpan[]>> {
  return groupBy(await spansOfAnnulments(db, ids), ({ annulment_id: owner, ...span }) => [owner, span]);
}

/** The rows by their owner's id, each owner's in the rows' order. */
function groupBy<Row, T>(rows: readonly Row[], split: (row: Row) => [string, T]): Map<string, T[]> {
  const byOwner = new Map<string, T[]>();
  for (const row of rows) {
    const [owner, value] = split(row);
    const list = byOwner.get(owner);
    if (list === undefined) byOwner.set(owner, [value]);
    else list.push(value);
  }
  return byOwner;
}
