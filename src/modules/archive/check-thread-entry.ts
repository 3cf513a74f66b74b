// A check thread's side (check-thread.ts): each item read from its file and checked by the same function the
// verifier calls on the main thread (artefact-check.ts), the signed XML read here too.
import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { readSignedEcf } from '../../fiscal/receiving/signed-ecf-check.js';
import type { XmlChecks } from '../../platform/xml-checks/index.js';
import { contentFailure } from './artefact-check.js';
import type { CheckedItem, CheckItem } from './check-thread.js';

const here: Pick<XmlChecks, 'readSignedEcf'> = { readSignedEcf: (xml) => Promise.resolve(readSignedEcf(xml)) };

function readIfThere(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
    // As the store's get: a missing file, or a key that names a directory, is a missing object.
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return undefined;
    throw error;
  }
}

async function check(items: readonly CheckItem[]): Promise<CheckedItem[]> {
  const checked: CheckedItem[] = [];
  for (const { artefact, path } of items) {
    const bytes = readIfThere(path);
    checked.push({ failure: await contentFailure(artefact, bytes, here), bytes: bytes?.byteLength ?? 0 });
  }
  return checked;
}

// Every request gets its reply, an error included (the verifier then checks that batch on the main thread).
parentPort?.on('message', (request: { id: number; items: CheckItem[] }) => {
  check(request.items).then(
    (result) => {
      parentPort?.postMessage({ id: request.id, result });
    },
    (error: unknown) => {
      parentPort?.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) });
    },
  );
});
