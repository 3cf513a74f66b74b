// A document's archived artefacts: the one key layout and the one way to archive them. The artefacts of the documents
// a company creates in a day share one directory (named by the day of the document's creation, so later artefacts
// join the first): the filesystem adapter makes no directory per document, and syncs the day's directory once for
// all the files of a batch, instead of a new directory and its parent for each document.
import { isoDateOf } from '../../fiscal/dates.js';
import type { ArtefactKind } from './tables.js';
import { BlobExistsError, type BlobStore } from '../../platform/storage/index.js';
import type { ArtefactRow } from './documents.repo.js';

/** rfce-xml: the RFCE a type 32 under DOP 250,000 was summarised as when it was sent. acecf-xml: the buyer's
 * commercial approval or rejection (ACECF), as received (received-approvals.ts). arecf-xml: the buyer's receiver's
 * acknowledgement (ARECF) of our delivery, one version per delivery that got one (modules/buyer-delivery). */
export const artefactKinds = [
  'source-json',
  'source-xml',
  'signed-xml',
  'rfce-xml',
  'acecf-xml',
  'arecf-xml',
] as const satisfies readonly ArtefactKind[];

const contentTypes: Record<ArtefactKind, string> = {
  'source-json': 'application/json',
  'source-xml': 'application/xml',
  'signed-xml': 'application/xml',
  'rfce-xml': 'application/xml',
  'acecf-xml': 'application/xml',
  'arecf-xml': 'application/xml',
};

/** The document whose artefacts these are; `createdAt`, its creation, names the day directory. */
export interface ArtefactOwner {
  companyId: string;
  documentId: string;
  createdAt: Date;
}

function artefactKey(owner: ArtefactOwner, kind: ArtefactKind, version: number): string {
  return `documents/${owner.companyId}/${isoDateOf(owner.createdAt)}/${owner.documentId}.${kind}.v${String(version)}.${kind === 'source-json' ? 'json' : 'xml'}`;
}

/** The keys archiveArtefacts writes for these artefacts. */
export function artefactKeys(owner: ArtefactOwner, artefacts: Partial<Record<ArtefactKind, Uint8Array>>): string[] {
  return artefactKinds.filter((kind) => artefacts[kind] !== undefined).map((kind) => artefactKey(owner, kind, 1));
}

/**
 * Writes version 1 of each artefact (write-once blobs, in parallel) and returns the rows that record them. Callers
 * insert the rows only after this returns: a crash leaves at most unreferenced blobs, never a row naming nothing.
 * `newDocument`: the document id was minted for this write, so no other writer or reader can meet its keys yet.
 */
export async function archiveArtefacts(
  blobs: BlobStore,
  owner: ArtefactOwner,
  artefacts: Partial<Record<ArtefactKind, Uint8Array>>,
  now: Date,
  newDocument: boolean,
): Promise<ArtefactRow[]> {
  const kinds = artefactKinds.filter((kind) => artefacts[kind] !== undefined);
  return Promise.all(
    kinds.map(async (kind) => {
      const key = artefactKey(owner, kind, 1);
      const stored = await blobs.put(key, artefacts[kind] as Uint8Array, {
        contentType: contentTypes[kind],
        fresh: newDocument,
      });
      return {
        document_id: owner.documentId,
        kind,
        version: 1,
        blob_key: key,
        sha256: stored.sha256,
        size: stored.size,
        content_type: contentTypes[kind],
        created_at: now,
      };
    }),
  );
}

/**
 * Writes the next version of one artefact made after creation, one of several a document may gather (an ARECF per
 * delivery), and returns the row that records it, to insert in the transaction that records why it was made.
 * `after`: the last version recorded. A version whose key holds other bytes was written by an attempt that died
 * before recording it (blobs are write-once): that number stays with its orphan and the next free one is taken.
 */
export async function archiveNextArtefactVersion(
  blobs: BlobStore,
  owner: ArtefactOwner,
  kind: ArtefactKind,
  bytes: Uint8Array,
  after: number,
  now: Date,
): Promise<ArtefactRow> {
  for (let version = after + 1; ; version++) {
    const key = artefactKey(owner, kind, version);
    try {
      const stored = await blobs.put(key, bytes, { contentType: contentTypes[kind], fresh: true });
      return {
        document_id: owner.documentId,
        kind,
        version,
        blob_key: key,
        sha256: stored.sha256,
        size: stored.size,
        content_type: contentTypes[kind],
        created_at: now,
      };
    } catch (error) {
      if (!(error instanceof BlobExistsError) || version > after + orphansTolerated) throw error;
    }
  }
}

/** Versions skipped for orphans before archiving gives up: each is an attempt that died between blob and row. */
const orphansTolerated = 16;
