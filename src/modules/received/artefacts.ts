// A received document's archived artefacts: the exact bytes that arrived, the ARECF answered, and (once the
// commercial response is made) the ACECF. One key layout, write-once blobs, rows inserted only after the blobs exist.
import type { ReceivedArtefactKind } from '../../platform/db/schema.js';
import type { BlobStore } from '../../platform/storage/index.js';
import type { ReceivedArtefactRow } from './received.repo.js';

export const receivedArtefactKinds = ['received-xml', 'arecf-xml', 'acecf-xml'] as const satisfies readonly ReceivedArtefactKind[];

export function receivedArtefactKey(companyId: string, receivedId: string, kind: ReceivedArtefactKind, version: number): string {
  return `received/${companyId}/${receivedId}/${kind}.v${String(version)}.xml`;
}

/** Writes version 1 of each artefact given and returns the rows that record them. */
export async function archiveReceivedArtefacts(
  blobs: BlobStore,
  ids: { companyId: string; receivedId: string },
  artefacts: Partial<Record<ReceivedArtefactKind, Uint8Array>>,
  now: Date,
): Promise<ReceivedArtefactRow[]> {
  const kinds = receivedArtefactKinds.filter((kind) => artefacts[kind] !== undefined);
  return Promise.all(
    kinds.map(async (kind) => {
      const key = receivedArtefactKey(ids.companyId, ids.receivedId, kind, 1);
      const stored = await blobs.put(key, artefacts[kind] as Uint8Array, { contentType: 'application/xml', fresh: true });
      return { received_document_id: ids.receivedId, kind, version: 1, blob_key: key, sha256: stored.sha256, size: stored.size, content_type: 'application/xml', created_at: now };
    }),
  );
}
