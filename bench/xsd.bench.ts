// XSD validation with libxml2-wasm against DGII's official schemas (read from ../shared/dgii/xsd): how long the
// fifteen take to repair and compile at start, and validations per second for a small and a 200-line e-CF 31.
import { compileSchemaSet, type SchemaSet } from '../src/fiscal/xsd/index.js';
import { ecf31WithItems, ecf31WithStubSignature, readOfficialXsds } from '../test/support/dgii-files.js';
import type { BenchRow } from './support/table.js';

/** Runs for about `seconds` after a warm-up; throws if a document that must pass does not. */
function validationsPerSecond(set: SchemaSet, xml: Uint8Array, seconds: number): number {
  const findings = set.validate('e-CF-31', xml);
  if (findings.length > 0)
    throw new Error(`bench document is invalid: ${findings.map((finding) => finding.message).join('; ')}`);
  const deadline = (until: number) => () => performance.now() < until;
  for (const running = deadline(performance.now() + 500); running();) set.validate('e-CF-31', xml);
  let count = 0;
  const start = performance.now();
  for (const running = deadline(start + seconds * 1_000); running(); count++) set.validate('e-CF-31', xml);
  return count / ((performance.now() - start) / 1_000);
}

export function xsdBench(): Promise<BenchRow[]> {
  const files = readOfficialXsds();
  const compileStart = performance.now();
  const set = compileSchemaSet(files);
  const compileMs = performance.now() - compileStart;
  try {
    const rows: BenchRow[] = [
      {
        benchmark: 'XSD compile (15 official schemas, repaired)',
        result: `${compileMs.toFixed(0)} ms`,
        note: `${set.repairs.length} repairs; once at start`,
      },
    ];
    const encoder = new TextEncoder();
    for (const [name, xml] of [
      ['XSD validate e-CF 31, 1 item', encoder.encode(ecf31WithStubSignature())],
      ['XSD validate e-CF 31, 200 items', encoder.encode(ecf31WithItems(200))],
    ] as const) {
      const rate = validationsPerSecond(set, xml, 3);
      rows.push({
        benchmark: name,
        result: `${Math.round(rate)} validations/s`,
        note: `${(xml.byteLength / 1024).toFixed(1)} KB, one thread, parse + validate`,
      });
    }
    return Promise.resolve(rows);
  } finally {
    set.dispose();
  }
}
