// The export's manifest, for people (manifest.csv, one row per file, opens in a spreadsheet), for tools
// (manifest.json) and for `sha256sum -c` (SHA256SUMS, GNU coreutils' format: `<hex>  <path>`, paths from the zip's
// root). Each is written to a temporary file while the export runs, an entry at a time, and added to the zip at its
// end: none of it is held in memory, whatever the period's size.
import { createHash, type Hash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { join } from 'node:path';
import { formatDgiiTimestamp, isoDateOf } from '../../fiscal/dates.js';
import type { Section } from './export.repo.js';

export interface ManifestArtefact {
  kind: string;
  version: number;
  /** In the zip, from its root. */
  path: string;
  /** Lowercase hex of the exported bytes, equal to the one recorded when they were archived. */
  sha256: string;
  size: number;
}

/** A document, received document or annulment, with the files it exported. */
export interface ManifestEntry {
  id: string;
  /** Null for an annulment: `annulled` lists its numbers. */
  eNCF: string | null;
  ecfType: string | null;
  rncEmisor: string | null;
  rncComprador: string | null;
  fechaEmision: string | null;
  /** Created (documents, annulments) or received. */
  recordedAt: Date;
  /** Ours: a document's sending status, a reception's (received / not_received), an annulment's. */
  status: string;
  /** DGII's answer (Aceptado, Rechazado, …); null before DGII answered and for received documents. */
  dgiiEstado: string | null;
  trackId: string | null;
  /** Received documents: the company's commercial answer (ACECF). */
  commercialStatus?: string | null;
  /** Annulments: the e-NCF the ANECF annuls. */
  annulled?: { ecfType: string; from: string; to: string }[];
  artefacts: ManifestArtefact[];
}

export interface ManifestHeader {
  company: { id: string; rnc: string; legalName: string };
  period: { from: string; to: string; start: Date; end: Date };
}

export interface ManifestTotals {
  documents: number;
  receivedDocuments: number;
  annulments: number;
  artefacts: number;
  bytes: number;
}

/** A finished manifest file, to add to the zip. */
export interface ManifestFile {
  name: string;
  file: string;
}

export const csvColumns = [
  'section',
  'id',
  'encf',
  'ecf_type',
  'rnc_emisor',
  'rnc_comprador',
  'fecha_emision',
  'recorded_at',
  'status',
  'dgii_estado',
  'track_id',
  'artefact',
  'version',
  'size',
  'sha256',
  'path',
] as const;

const sectionNames: Record<Section, { json: string; csv: string; time: string }> = {
  documents: { json: 'documents', csv: 'document', time: 'createdAt' },
  received: { json: 'received', csv: 'received', time: 'receivedAt' },
  annulments: { json: 'annulments', csv: 'annulment', time: 'createdAt' },
};

/** An instant as ISO 8601 in GMT-4 (the period's days are GMT-4 days), to the second: `2026-11-21T10:30:00-04:00`. */
export function localTimestamp(instant: Date): string {
  return `${isoDateOf(instant)}T${formatDgiiTimestamp(instant).slice(11)}-04:00`;
}

/** RFC 4180: quoted when it holds a comma, a quote or a line break. */
function csvCell(value: string | number | null): string {
  const text = value === null ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A temporary file written with the stream's backpressure, hashing what it writes. */
class HashedFile {
  private readonly stream: WriteStream;
  private readonly hash: Hash = createHash('sha256');

  constructor(readonly file: string) {
    this.stream = createWriteStream(file);
    this.stream.on('error', () => undefined); // thrown by the next write, drain or close
  }

  async write(text: string): Promise<void> {
    if (this.stream.errored !== null) throw this.stream.errored;
    const bytes = Buffer.from(text, 'utf8');
    this.hash.update(bytes);
    if (!this.stream.write(bytes)) await once(this.stream, 'drain');
  }

  /** Closes the file and returns its SHA-256. */
  async close(): Promise<string> {
    this.stream.end();
    await finished(this.stream);
    return this.hash.digest('hex');
  }

  destroy(): void {
    this.stream.destroy();
  }
}

export interface ManifestWriter {
  /** Starts a section of manifest.json; sections come in the order documents, received, annulments. */
  section(section: Section): Promise<void>;
  /** An entry of the section started last. */
  entry(entry: ManifestEntry): Promise<void>;
  /** Closes the files: manifest.json, manifest.csv, then SHA256SUMS (which lists the two manifests too). */
  finish(totals: ManifestTotals): Promise<ManifestFile[]>;
  destroy(): void;
}

export async function openManifest(dir: string, header: ManifestHeader): Promise<ManifestWriter> {
  const json = new HashedFile(join(dir, 'manifest.json'));
  const csv = new HashedFile(join(dir, 'manifest.csv'));
  const sums = new HashedFile(join(dir, 'SHA256SUMS'));
  const { company, period } = header;
  await json.write(
    `{"format":"ecf-archive-export/1",\n"company":${JSON.stringify(company)},\n"period":${JSON.stringify({
      from: period.from,
      to: period.to,
      timeZone: 'America/Santo_Domingo',
      start: localTimestamp(period.start),
      end: localTimestamp(period.end),
    })}`,
  );
  await csv.write(`${csvColumns.join(',')}\r\n`);
  let open: Section | undefined;
  let first = true;

  async function closeSection(): Promise<void> {
    if (open !== undefined) await json.write(first ? ']' : '\n]');
  }

  return {
    async section(section) {
      await closeSection();
      open = section;
      first = true;
      await json.write(`,\n${JSON.stringify(sectionNames[section].json)}:[`);
    },
    async entry(entry) {
      if (open === undefined) throw new Error('manifest entry outside a section');
      const names = sectionNames[open];
      const { recordedAt, annulled, commercialStatus, ...rest } = entry;
      const item = {
        ...rest,
        [names.time]: localTimestamp(recordedAt),
        ...(commercialStatus === undefined ? {} : { commercialStatus }),
        ...(annulled === undefined ? {} : { annulled }),
      };
      await json.write(`${first ? '\n' : ',\n'}${JSON.stringify(item)}`);
      first = false;
      const eNCF = entry.eNCF ?? annulled?.map((span) => `${span.from}..${span.to}`).join(' ') ?? null;
      const ecfType =
        entry.ecfType ?? (annulled === undefined ? null : [...new Set(annulled.map((s) => s.ecfType))].join(' '));
      const owner = [
        names.csv,
        entry.id,
        eNCF,
        ecfType,
        entry.rncEmisor,
        entry.rncComprador,
        entry.fechaEmision,
        localTimestamp(recordedAt),
        entry.status,
        entry.dgiiEstado,
        entry.trackId,
      ];
      let rows = '';
      let lines = '';
      for (const artefact of entry.artefacts) {
        const file = [artefact.kind, artefact.version, artefact.size, artefact.sha256, artefact.path];
        rows += `${[...owner, ...file].map(csvCell).join(',')}\r\n`;
        lines += `${artefact.sha256}  ${artefact.path}\n`;
      }
      await csv.write(rows);
      await sums.write(lines);
    },
    async finish(totals) {
      await closeSection();
      await json.write(`,\n"totals":${JSON.stringify(totals)}}\n`);
      const manifests = [
        { name: 'manifest.json', file: json.file, sha256: await json.close() },
        { name: 'manifest.csv', file: csv.file, sha256: await csv.close() },
      ];
      for (const manifest of manifests) await sums.write(`${manifest.sha256}  ${manifest.name}\n`);
      await sums.close();
      return [...manifests.map(({ name, file }) => ({ name, file })), { name: 'SHA256SUMS', file: sums.file }];
    },
    destroy() {
      for (const file of [json, csv, sums]) file.destroy();
    },
  };
}
