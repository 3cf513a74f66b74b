// The set converter (SPEC §2.3): `ecf certification convert` as an operator runs it, on workbooks written the
// way DGII's portal writes them (the sandbox's generator): every case back exactly as it was generated, a defective
// row reported with its case key and pointer, and anything that is not a set refused with one line and exit 2.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sheetHeaders } from '../src/fiscal/certification/index.js';
import { writeXlsx } from '../src/platform/xlsx/index.js';
import { generateCertificationSet } from '../src/sandbox/certification/set-generator.js';
import { setWorkbook } from '../src/sandbox/certification/set-workbook.js';
import { ecfProgram } from './support/worker-process.js';

const rnc = '131880681';
const now = new Date();

function ecf(args: string[]) {
  return spawnSync(process.execPath, [...ecfProgram, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
}

describe('ecf certification convert', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'ecf-set-'));
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('converts every case of a generated workbook to exactly the payload it was generated from', () => {
    const cases = generateCertificationSet({ rnc, now, seed: 11 });
    const path = join(dir, `${rnc}-26112026101500.xlsx`);
    writeFileSync(path, setWorkbook(cases));
    const run = ecf(['certification', 'convert', path, '--label', 'set de prueba']);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, '', 'a generated set has no findings');
    const file = JSON.parse(run.stdout) as {
      label: string;
      cases: { kind: string; caseKey: string; ecfType: string; payload: unknown }[];
    };
    assert.equal(file.label, 'set de prueba');
    assert.equal(file.cases.length, 29);
    assert.deepEqual(
      file.cases.map((setCase) => [setCase.kind, setCase.caseKey, setCase.ecfType]),
      cases.map((setCase) => [setCase.kind, setCase.caseKey, setCase.ecfType]),
    );
    for (const [index, setCase] of file.cases.entries()) {
      // Leaf by leaf, every string equal: no value trimmed, reformatted, added or dropped (the builder writes each
      // type's XSD order whatever the order of the keys).
      assert.deepStrictEqual(setCase.payload, cases[index]!.payload, `case ${setCase.caseKey}`);
    }
    const defaultLabel = ecf(['certification', 'convert', path]);
    assert.equal((JSON.parse(defaultLabel.stdout) as { label: string }).label, `${rnc}-26112026101500.xlsx`);
  });

  it('reports the defective type 34 with its case key and pointer, and still exits 0', () => {
    const cases = generateCertificationSet({ rnc, now, seed: 12, defects: ['type34_without_tipo_ingresos'] });
    const defective = cases.find(
      (setCase) =>
        setCase.ecfType === '34' &&
        !(
          'TipoIngresos' in ((setCase.payload['Encabezado'] as Record<string, Record<string, unknown>>)['IdDoc'] ?? {})
        ),
    );
    assert.ok(defective !== undefined);
    const path = join(dir, 'defective.xlsx');
    writeFileSync(path, setWorkbook(cases));
    const run = ecf(['certification', 'convert', path]);
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stderr.trim().split('\n');
    assert.deepEqual(
      lines.filter((line) => line.startsWith(`${defective.caseKey} /Encabezado/IdDoc/TipoIngresos:`)).length,
      1,
      run.stderr,
    );
    assert.equal(lines.length, 1, run.stderr);
    assert.equal(
      (JSON.parse(run.stdout) as { cases: unknown[] }).cases.length,
      29,
      'the defective case is converted, not dropped',
    );
  });

  it('keeps cell text verbatim: spaces, accents, #e as absent, unknown columns reported', () => {
    const headers = sheetHeaders('ECF');
    const cells = new Map<string, string>([
      ['CasoPrueba', `${rnc}E310000000009`],
      ['Version', '1.0'],
      ['TipoeCF', '31'],
      ['ENCF', 'E310000000009'],
      ['RazonSocialComprador', '  Peña & Hijos, S.R.L.  '],
      ['MontoTotal', '100'],
      ['Direccion Inventada', 'x'],
    ]);
    const row = [...headers, 'Direccion Inventada'].map((header) => cells.get(header) ?? '#e');
    const path = join(dir, 'verbatim.xlsx');
    writeFileSync(
      path,
      writeXlsx([
        { name: 'ECF', rows: [[...headers, 'Direccion Inventada'], row] },
        { name: 'RFCE', rows: [sheetHeaders('RFCE')] },
      ]),
    );
    const run = ecf(['certification', 'convert', path]);
    assert.equal(run.status, 0, run.stderr);
    const payload = (
      JSON.parse(run.stdout) as {
        cases: {
          payload: {
            Encabezado: {
              Comprador: Record<string, string>;
              Totales: Record<string, string>;
              IdDoc: Record<string, string>;
            };
          };
        }[];
      }
    ).cases[0]!.payload;
    assert.equal(payload.Encabezado.Comprador['RazonSocialComprador'], '  Peña & Hijos, S.R.L.  ');
    assert.equal(payload.Encabezado.Totales['MontoTotal'], '100');
    assert.deepEqual(Object.keys(payload.Encabezado.IdDoc), ['TipoeCF', 'eNCF']);
    assert.match(run.stderr, /Direccion Inventada/);
    assert.match(
      run.stderr,
      new RegExp(`${rnc}E310000000009 /Encabezado/`),
      'its missing required fields are findings too',
    );
  });

  it('refuses garbage, an empty zip, a workbook without the sheets, and bad arguments with one line and exit 2', () => {
    const garbage = join(dir, 'garbage.xlsx');
    writeFileSync(garbage, Buffer.from('esto no es un libro de Excel'));
    // An empty zip: the end-of-central-directory record alone.
    const emptyZip = join(dir, 'empty.xlsx');
    writeFileSync(emptyZip, Buffer.from([0x50, 0x4b, 0x05, 0x06, ...Array<number>(18).fill(0)]));
    const otherSheets = join(dir, 'other.xlsx');
    writeFileSync(otherSheets, writeXlsx([{ name: 'Hoja1', rows: [['CasoPrueba', 'ENCF']] }]));
    const noKey = join(dir, 'nokey.xlsx');
    writeFileSync(
      noKey,
      writeXlsx([
        { name: 'ECF', rows: [['Nombre', 'Monto']] },
        { name: 'RFCE', rows: [['Nombre']] },
      ]),
    );
    for (const [args, says] of [
      [['certification', 'convert', garbage], /not a readable zip|not an xlsx/],
      [['certification', 'convert', emptyZip], /empty zip/],
      [['certification', 'convert', otherSheets], /no sheet ECF or RFCE/],
      [['certification', 'convert', noKey], /CasoPrueba/],
      [['certification', 'convert', join(dir, 'missing.xlsx')], /cannot read .*ENOENT/],
      [['certification', 'convert'], /usage/],
      [['certification', 'convert', garbage, '--label'], /usage/],
      [['certification', 'export', garbage], /usage/],
    ] as const) {
      const run = ecf([...args]);
      assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.equal(run.stdout, '');
      assert.equal(run.stderr.trim().split('\n').length, 1, `one line: ${run.stderr}`);
      assert.match(run.stderr, says);
    }
  });
});
