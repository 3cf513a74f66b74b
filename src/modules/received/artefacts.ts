// A received document's archived artefacts: the exact bytes that arrived, the ARECF answered, and (once the
// commercial response is made) the ACECF. One key layout, write-once blobs, rows inserted only after the blobs exist.
// As for issued documents (documents/artefacts.ts), a company's documents received in a day share one directory.
import { isoDateOf } from '../../fiscal/dates.js';
import type { ReceivedArtefactKind } from './tables.js';
import type { BlobStore } from '../../platform/storage/index.js';
import type { ReceivedArtefactRow } from './received.repo.js';

export const receivedArtefactKinds = [
  'received-xml',
  'arecf-xml',
  'acecf-xml',
] as const satisfies readonly ReceivedArtefactKind[];

/** The received document whose artefacts these are; `receivedAt`, its reception, names the day directory. */
export interface ReceivedArtefactOwner {
  companyId: string;
  receivedId: string;
  receivedAt: Date;
}

export function receivedArtefactKey(owner: ReceivedArtefactOwner, kind: ReceivedArtefactKind, version: number): string {
  return `received/${owner.companyId}/${isoDateOf(owner.receivedAt)}/${owner.receivedId}.${kind}.v${String(version)}.xml`;
}

/** Writes version 1 of each artefact given and returns the rows that record them. */
export async function archiveReceivedArtefacts(
  blobs: BlobStore,
  owner: ReceivedArtefactOwner,
  artefacts: Partial<Record<ReceivedArtefactKind, Uint8Array>>,
  now: Date,
): Promise<ReceivedArtefactRow[]> {
  const kinds = receivedArtefactKinds.filter((kind) => artefacts[kind] !== undefined);
  return Promise.all(
    kinds.map(async (kind) => {
      const key = receivedArtefactKey(owner, kind, 1);
      const stored = await blobs.put(key, artefacts[kind] as Uint8Array, {
        contentType: 'application/xml',
        fresh: true,
      });
      return {
        received_document_id: owner.receivedId,
        kind,
        version: 1,
        blob_key: key,
        sha256: stored.sha256,
        size: stored.size,
        content_type: 'application/xml',
        created_at: now,
      };
    }),
  );
}
