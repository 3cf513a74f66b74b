// The audit export of the fiscal archive (issue 31): every document, received document and annulment of a company
// in a period, each artefact exactly as archived, in one zip with a manifest that anyone can check offline:
//
//   documents/<eNCF>/<kind>.v<version>.<json|xml>              e.g. documents/E310000000001/signed-xml.v1.xml
//   received/<RNCEmisor>-<eNCF>-<id>/<kind>.v<version>.xml     one folder per reception (a refused copy has its own)
//   annulments/<id>/anecf.xml
//   manifest.json, manifest.csv                                 one entry per document, one CSV row per file
//   SHA256SUMS                                                  `unzip x.zip -d d && cd d && sha256sum -c SHA256SUMS`
//
// The period is GMT-4 calendar days, from and to inclusive: documents and annulments by when they were created,
// received documents by when they arrived. Entries come in that order (time, then id), section after section, so an
// archive exports to the same zip every time.
//
// Streamed: the database is read a page at a time, blobs a few owners ahead, the zip written as it grows and the
// manifest to temporary files added at the end; memory stays flat whatever the period holds (test/archive-export).
//
// A blob that is missing or whose bytes differ from the SHA-256 recorded when it was archived stops the export with
// an ArchiveExportError naming the file, and nothing is left at `out` (the zip is written beside it and renamed only
// when complete). An export is what a company hands DGII or an auditor as its archive of the period: one that left
// a file out, even listed as missing, would be handed over as complete by someone who never opened the manifest, and
// bytes that differ from the record are never exported. The fault is the archive's, to repair (from a backup, or the
// bucket's versions) before the export is run again; the archive verifier lists every such fault at once.
import { createHash } from 'node:crypto';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fiscalEnvironments, type FiscalEnvironment } from '../../config.js';
import { parseDgiiTimestamp } from '../../fiscal/dates.js';
import { encfOf } from '../../fiscal/encf.js';
import type { Db } from '../../platform/db/database.js';
import { readArchived, type BlobStore } from '../../platform/storage/index.js';
import { openManifest, type ManifestEntry, type ManifestTotals, type ManifestWriter } from './export-manifest.js';
import * as repo from './export.repo.js';
import { createZipWriter } from './export-zip.js';
import type { ArchiveTables } from './tables.js';

export interface ExportOptions {
  companyId: string;
  /** YYYY-MM-DD, a GMT-4 calendar day. */
  from: string;
  /** YYYY-MM-DD, inclusive. */
  to: string;
  /** Path of the zip to write. */
  out: string;
  /** Documents, received documents and annulments exported so far, of the total the period held at the start. */
  progress?: (done: number, total: number) => void;
}

export interface ExportSummary {
  documents: number;
  receivedDocuments: number;
  annulments: number;
  /** Files exported (manifests not counted), and their bytes. */
  artefacts: number;
  bytes: number;
  zipBytes: number;
}

export type ArchiveExportErrorCode =
  'invalid_period' | 'unknown_company' | 'mixed_environments' | 'artefact_unreadable';

export class ArchiveExportError extends Error {
  constructor(
    readonly code: ArchiveExportErrorCode,
    message: string,
    options?: { cause: unknown },
  ) {
    super(message, options);
    this.name = 'ArchiveExportError';
  }
}

interface ExportDeps {
  db: Db<ArchiveTables>;
  blobs: BlobStore;
}

/** One file of an owner, to read. */
interface PlannedFile {
  kind: string;
  version: number;
  path: string;
  mtime: Date;
  read: () => Promise<{ bytes: Buffer; sha256: string }>;
}

interface Owner<F> {
  entry: Omit<ManifestEntry, 'artefacts'>;
  files: F[];
}

type LoadedFile = Omit<PlannedFile, 'read'> & { bytes: Buffer; sha256: string };

const sections = ['documents', 'received', 'annulments'] as const satisfies readonly repo.Section[];
const counters = { documents: 'documents', received: 'receivedDocuments', annulments: 'annulments' } as const;
const pageSize = 500;
/** Owners whose blobs are read ahead of the zip: enough to hide an object store's latency, a few MB at most. */
const readAheadOwners = 8;
const dayMs = 86_400_000;

export async function exportArchive(deps: ExportDeps, options: ExportOptions): Promise<ExportSummary> {
  const period = periodOf(options.from, options.to);
  const company = await repo.findCompany(deps.db, options.companyId);
  if (company === undefined) throw new ArchiveExportError('unknown_company', `No company ${options.companyId}.`);
  const { environment, total } = await extentOf(deps.db, company.id, period);
  const work = await mkdtemp(join(tmpdir(), 'ecf-archive-export-'));
  const partial = `${options.out}.partial`;
  const zip = createZipWriter(partial, { workDir: work });
  let manifest: ManifestWriter | undefined;
  try {
    manifest = await openManifest(work, {
      company: { id: company.id, rnc: company.rnc, legalName: company.legal_name },
      period: { from: options.from, to: options.to, ...period },
    });
    const totals: ManifestTotals = { documents: 0, receivedDocuments: 0, annulments: 0, artefacts: 0, bytes: 0 };
    let done = 0;
    let latest = period.start;
    options.progress?.(0, total);
    for (const section of sections) {
      await manifest.section(section);
      if (environment === undefined) continue;
      const owners = ownersOf(section, deps, { companyId: company.id, environment, period }, company.rnc);
      for await (const owner of readAhead(owners, readAheadOwners, load)) {
        for (const file of owner.files) {
          await zip.add(file.path, file.bytes, file.mtime);
          totals.artefacts++;
          totals.bytes += file.bytes.length;
          if (file.mtime > latest) latest = file.mtime;
        }
        await manifest.entry({
          ...owner.entry,
          artefacts: owner.files.map(({ kind, version, path, sha256, bytes }) => ({
            kind,
            version,
            path,
            sha256,
            size: bytes.length,
          })),
        });
        totals[counters[section]]++;
        done++;
        options.progress?.(done, Math.max(total, done));
      }
    }
    // The manifests carry the time of the latest file they list: the same archive, the same zip.
    for (const file of await manifest.finish(totals)) await zip.addFile(file.name, file.file, latest);
    const zipBytes = await zip.close();
    await rename(partial, options.out);
    return { ...totals, zipBytes };
  } catch (error) {
    zip.destroy();
    manifest?.destroy();
    await rm(partial, { force: true });
    throw error;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The period's instants: GMT-4 has no daylight saving, so every day is 24 hours. */
function periodOf(from: string, to: string): repo.Period {
  const start = dayStart(from, 'from');
  const last = dayStart(to, 'to');
  if (last < start)
    throw new ArchiveExportError('invalid_period', `The period ends (${to}) before it starts (${from}).`);
  return { start, end: new Date(last.getTime() + dayMs) };
}

function dayStart(text: string, name: string): Date {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const start = match === null ? undefined : parseDgiiTimestamp(`${match[3]}-${match[2]}-${match[1]} 00:00:00`);
  if (start === undefined)
    throw new ArchiveExportError('invalid_period', `${name} is not a date YYYY-MM-DD: "${text}".`);
  return start;
}

/**
 * The environment whose rows the period holds, and how many. A database serves one fiscal environment
 * (platform/db/environment-guard.ts); one that holds two would give two documents one path (the e-NCF is unique
 * per environment), so it is refused rather than exported with one of them left out.
 */
async function extentOf(
  db: Db<ArchiveTables>,
  companyId: string,
  period: repo.Period,
): Promise<{ environment: FiscalEnvironment | undefined; total: number }> {
  const found: { environment: FiscalEnvironment; count: number }[] = [];
  for (const environment of fiscalEnvironments) {
    let count = 0;
    for (const section of sections) count += await repo.countInPeriod(db, section, { companyId, environment, period });
    if (count > 0) found.push({ environment, count });
  }
  if (found.length > 1)
    throw new ArchiveExportError(
      'mixed_environments',
      `The period holds rows of more than one fiscal environment (${found.map((f) => f.environment).join(', ')}); a database serves one.`,
    );
  return { environment: found[0]?.environment, total: found[0]?.count ?? 0 };
}

async function* pages<T extends { id: string }>(
  read: (after: repo.PagePosition | undefined) => Promise<T[]>,
  timeOf: (row: T) => Date,
): AsyncGenerator<T[]> {
  let after: repo.PagePosition | undefined;
  for (;;) {
    const rows = await read(after);
    if (rows.length > 0) yield rows;
    const last = rows.at(-1);
    if (rows.length < pageSize || last === undefined) return;
    after = { at: timeOf(last), id: last.id };
  }
}

function ownersOf(
  section: repo.Section,
  deps: ExportDeps,
  scope: repo.Scope,
  companyRnc: string,
): AsyncGenerator<Owner<PlannedFile>> {
  switch (section) {
    case 'documents':
      return documentOwners(deps, scope, companyRnc);
    case 'received':
      return receivedOwners(deps, scope);
    case 'annulments':
      return annulmentOwners(deps, scope);
  }
}

async function* documentOwners(deps: ExportDeps, scope: repo.Scope, companyRnc: string) {
  const { db, blobs } = deps;
  for await (const rows of pages(
    (after) => repo.documentsPage(db, scope, after, pageSize),
    (row) => row.created_at,
  )) {
    const artefacts = await repo.documentArtefacts(
      db,
      rows.map((row) => row.id),
    );
    for (const row of rows) {
      const dir = `documents/${segment(row.encf)}`;
      yield {
        entry: {
          id: row.id,
          eNCF: row.encf,
          ecfType: row.ecf_type,
          rncEmisor: companyRnc,
          rncComprador: row.rnc_comprador,
          fechaEmision: row.fecha_emision,
          recordedAt: row.created_at,
          status: row.status,
          dgiiEstado: row.dgii_estado,
          trackId: row.track_id,
        },
        files: (artefacts.get(row.id) ?? []).map((artefact) => recordedFile(blobs, dir, artefact)),
      } satisfies Owner<PlannedFile>;
    }
  }
}

async function* receivedOwners(deps: ExportDeps, scope: repo.Scope) {
  const { db, blobs } = deps;
  for await (const rows of pages(
    (after) => repo.receivedPage(db, scope, after, pageSize),
    (row) => row.received_at,
  )) {
    const artefacts = await repo.receivedArtefacts(
      db,
      rows.map((row) => row.id),
    );
    for (const row of rows) {
      // The issuer's RNC and e-NCF come from what was sent to us (checked against their patterns, but a refused copy
      // shares them with the one received): the id keeps each reception's folder its own.
      const dir = `received/${segment(row.issuer_rnc)}-${segment(row.encf)}-${segment(row.id)}`;
      yield {
        entry: {
          id: row.id,
          eNCF: row.encf,
          ecfType: row.ecf_type,
          rncEmisor: row.issuer_rnc,
          rncComprador: row.rnc_comprador,
          fechaEmision: row.fecha_emision,
          recordedAt: row.received_at,
          status: row.status,
          dgiiEstado: null,
          trackId: null,
          commercialStatus: row.commercial_status,
        },
        files: (artefacts.get(row.id) ?? []).map((artefact) => recordedFile(blobs, dir, artefact)),
      } satisfies Owner<PlannedFile>;
    }
  }
}

async function* annulmentOwners(deps: ExportDeps, scope: repo.Scope) {
  const { db, blobs } = deps;
  for await (const rows of pages(
    (after) => repo.annulmentsPage(db, scope, after, pageSize),
    (row) => row.created_at,
  )) {
    const spans = await repo.annulmentSpans(
      db,
      rows.map((row) => row.id),
    );
    for (const row of rows) {
      const path = `annulments/${segment(row.id)}/anecf.xml`;
      yield {
        entry: {
          id: row.id,
          eNCF: null,
          ecfType: null,
          rncEmisor: null,
          rncComprador: null,
          fechaEmision: null,
          recordedAt: row.created_at,
          status: row.status,
          dgiiEstado: row.dgii_estado,
          trackId: null,
          annulled: (spans.get(row.id) ?? []).map((span) => ({
            ecfType: span.ecf_type,
            from: encfOf(span.ecf_type, span.first_number),
            to: encfOf(span.ecf_type, span.last_number),
          })),
        },
        files: [
          {
            kind: 'anecf-xml',
            version: 1,
            path,
            mtime: row.created_at,
            // No SHA-256 is recorded for an ANECF: the manifest gives the hash of the bytes read.
            read: async () => {
              const bytes = await blobs.get(row.blob_key);
              if (bytes === undefined)
                throw new ArchiveExportError(
                  'artefact_unreadable',
                  `${path}: archived blob ${row.blob_key} is missing`,
                );
              return { bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
            },
          },
        ],
      } satisfies Owner<PlannedFile>;
    }
  }
}

function recordedFile(blobs: BlobStore, dir: string, artefact: repo.RecordedArtefact): PlannedFile {
  const path = `${dir}/${artefact.kind}.v${artefact.version}.${artefact.content_type === 'application/json' ? 'json' : 'xml'}`;
  return {
    kind: artefact.kind,
    version: artefact.version,
    path,
    mtime: artefact.created_at,
    read: async () => {
      try {
        return { bytes: await readArchived(blobs, artefact), sha256: artefact.sha256 };
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new ArchiveExportError('artefact_unreadable', `${path}: ${reason}`, { cause: error });
      }
    },
  };
}

async function load(owner: Owner<PlannedFile>): Promise<Owner<LoadedFile>> {
  const files = await Promise.all(owner.files.map(async ({ read, ...file }) => ({ ...file, ...(await read()) })));
  return { entry: owner.entry, files };
}

/** `load` of each item, `depth` items ahead of the consumer, in order. */
async function* readAhead<T, U>(source: AsyncIterable<T>, depth: number, loadOne: (item: T) => Promise<U>) {
  const loading: Promise<U>[] = [];
  for await (const item of source) {
    const promise = loadOne(item);
    promise.catch(() => undefined); // awaited in turn below; a failure ahead of its turn is not unhandled
    loading.push(promise);
    const next = loading.length > depth ? loading.shift() : undefined;
    if (next !== undefined) yield await next;
  }
  for (const promise of loading) yield await promise;
}

/** A safe name for one path segment of the zip: letters, digits, `_` and `-` only, never empty, `.` or `..`. */
function segment(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || '_';
}
