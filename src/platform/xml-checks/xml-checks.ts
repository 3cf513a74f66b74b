// The costly reading of an XML document from outside (parse, XSD, signature), kept off the event loop when the
// document is large. Below offThreadBytes it runs here: a typical e-CF (5-30 KB, compact) costs a millisecond or
// two, less than the round trip to a thread. Above it, it runs on the XML thread (xml-thread.ts): every parser here
// is linear once the screen has refused the quadratic shapes (fiscal/xml/xml-shape.ts), but 5 MB of elements side
// by side still cost the general parsers 2-4 s, during which the API, the worker and the scheduler of this process
// would answer nothing. The functions are the fiscal ones; only where they run changes, and the answer is the same.
import { readReceivedEcf, type ReceptionReading } from '../../fiscal/receiving/received-ecf.js';
import { error } from '../../fiscal/finding.js';
import {
  checkSignedEcf,
  readSignedEcf,
  type SignedEcfCheck,
  type SignedEcfReading,
} from '../../fiscal/receiving/signed-ecf-check.js';
import type { SchemaSet } from '../../fiscal/xsd/index.js';
import { startXmlThread, type XmlTask } from './xml-thread.js';

/** Documents at least this large are read on the XML thread. */
export const offThreadBytes = 128 * 1024;

export interface XmlChecks {
  /** Checks 1 and 2 of the receiver standard (fiscal/receiving/received-ecf.ts). */
  readReceivedEcf(xml: Buffer): Promise<ReceptionReading>;
  /** The checks of a signed e-CF handed in by its issuer (fiscal/receiving/signed-ecf-check.ts). */
  checkSignedEcf(xml: Buffer): Promise<SignedEcfCheck>;
  /** The signature verdict and the reading of an archived signed e-CF (fiscal/receiving/signed-ecf-check.ts). */
  readSignedEcf(xml: Buffer): Promise<SignedEcfReading>;
  close(): Promise<void>;
}

export interface XmlChecksOptions {
  /** The schemas this thread compiled (undefined: no XSD directory). */
  schemas: SchemaSet | undefined;
  /** Where the XML thread compiles its own copy from (the same ECF_XSD_DIR). */
  xsdDir: string | undefined;
  onThreadFailure?: (error: Error) => void;
}

const unprocessable = 'The XML could not be processed.';

export function createXmlChecks(options: XmlChecksOptions): XmlChecks {
  const { schemas } = options;
  const thread = startXmlThread(options.xsdDir);

  async function run<T>(task: XmlTask, xml: Buffer, here: (bytes: Buffer) => T, failed: T): Promise<T> {
    if (xml.byteLength < offThreadBytes) return here(xml);
    try {
      return (await thread.request({ task, xml })) as T;
    } catch (error) {
      // The thread died under this document (out of memory, say): a refusal, never a 5xx; the next one restarts it.
      options.onThreadFailure?.(error instanceof Error ? error : new Error(String(error)));
      return failed;
    }
  }

  return {
    readReceivedEcf: (xml) =>
      run('readReceivedEcf', xml, (bytes) => readReceivedEcf(bytes, schemas), {
        kind: 'unreadable',
        message: unprocessable,
      }),
    checkSignedEcf: (xml) =>
      run('checkSignedEcf', xml, (bytes) => checkSignedEcf(bytes, schemas), {
        ok: false,
        detail: unprocessable,
        errors: [{ pointer: '/', code: 'xml_unprocessable', detail: unprocessable }],
      }),
    readSignedEcf: (xml) =>
      run('readSignedEcf', xml, readSignedEcf, {
        verdict: { ok: false, problems: [{ code: 'xml_unprocessable', message: unprocessable }] },
        parsed: { ok: false, findings: [error('/', 'xml_unprocessable', unprocessable)] },
      }),
    close: () => thread.stop(),
  };
}
