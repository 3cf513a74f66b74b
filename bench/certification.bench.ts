// The goal: a workbook of any size DGII makes converts in well under a second. DGII's set workbook (25 + 4 rows
// across ~5,300 columns, written by the sandbox's generator as DGII lays it out) converted in rounds, next to a
// baseline in the same run: the same workbook's rows only read, which is what no conversion can do without.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { convertSetWorkbook } from '../src/modules/certification/set-converter.js';
import { openXlsx } from '../src/platform/xlsx/index.js';
import { generateCertificationSet } from '../src/sandbox/certification/set-generator.js';
import { setWorkbook } from '../src/sandbox/certification/set-workbook.js';
import { median, spread } from './support/statistics.js';
import { verdict, type BenchRow } from './support/table.js';

const rounds = 7;

async function readRowsOnly(path: string): Promise<void> {
  const workbook = await openXlsx(path);
  try {
    for (const sheet of ['ECF', 'RFCE'])
      for await (const row of workbook.rows(sheet)) if (row.cells.length === 0) throw new Error('empty row');
  } finally {
    workbook.close();
  }
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

export async function certificationBench(): Promise<BenchRow[]> {
  const root = fileURLToPath(new URL('../data/bench', import.meta.url));
  mkdirSync(root, { recursive: true });
  const dir = mkdtempSync(join(root, 'certification-'));
  try {
    const path = join(dir, 'set.xlsx');
    const bytes = setWorkbook(generateCertificationSet({ rnc: '131880681', now: new Date(), seed: 3 }));
    writeFileSync(path, bytes);
    const now = new Date();
    for (let warm = 0; warm < 2; warm++) await convertSetWorkbook(path, { now });
    const read: number[] = [];
    const convert: number[] = [];
    for (let round = 0; round < rounds; round++) {
      read.push(await timed(() => readRowsOnly(path)));
      convert.push(await timed(() => convertSetWorkbook(path, { now })));
    }
    const range = (values: number[]) => {
      const { low, high } = spread(values);
      return `${low.toFixed(0)}-${high.toFixed(0)} ms`;
    };
    const converted = median(convert);
    return [
      {
        benchmark: 'Set workbook: rows read only (baseline)',
        result: `${median(read).toFixed(0)} ms`,
        note: `${(bytes.byteLength / 1024).toFixed(0)} KB xlsx, 29 rows; ${String(rounds)} rounds, ${range(read)}`,
      },
      {
        benchmark: 'Set workbook: ecf certification convert',
        result: `${converted.toFixed(0)} ms`,
        note: `rows to cases + every case checked verbatim; ${String(rounds)} rounds, ${range(convert)}; goal < 1,000 ms: ${verdict(converted < 1_000)}`,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
