// The XML thread's side (xml-thread.ts): DGII's schemas compiled once from the same directory as the main thread's,
// then each document read by the same fiscal function the main thread would call.
import { parentPort, workerData } from 'node:worker_threads';
import { readReceivedEcf } from '../../fiscal/receiving/received-ecf.js';
import { checkSignedEcf, readSignedEcf } from '../../fiscal/receiving/signed-ecf-check.js';
import type { SchemaSet } from '../../fiscal/xsd/index.js';
import { loadSchemaSet, silentSchemaLog } from '../xsd/index.js';
import type { XmlTask } from './xml-thread.js';

interface Request {
  id: number;
  task: XmlTask;
  xml: Uint8Array;
}

const { xsdDir } = workerData as { xsdDir: string | undefined };
// The main thread has logged what it loaded from the same directory.
const schemas = loadSchemaSet(xsdDir, silentSchemaLog);

function answer(request: Request, set: SchemaSet | undefined): unknown {
  switch (request.task) {
    case 'readReceivedEcf':
      return readReceivedEcf(request.xml, set);
    case 'checkSignedEcf':
      return checkSignedEcf(request.xml, set);
    case 'readSignedEcf':
      return readSignedEcf(request.xml);
  }
}

// Every request gets its reply, an error included: one that threw must not take the thread, and the requests
// queued behind it, down.
parentPort?.on('message', (request: Request) => {
  void schemas
    .then((set) => answer(request, set))
    .then(
      (result) => {
        parentPort?.postMessage({ id: request.id, result });
      },
      (error: unknown) => {
        parentPort?.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) });
      },
    );
});
