import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import yauzl from 'yauzl';
import { openXlsx, readXlsxSheets, writeXlsx, XlsxError, type XlsxCellValue, type XlsxRow } from './index.js';
import { XmlScanner } from './xml-scanner.js';
import { writeZip } from '../zip.js';
import { columnName } from './xlsx-writer.js';
import { requireTool } from '../../../test/support/tools.js';

const dir = mkdtempSync(join(tmpdir(), 'xlsx-'));
after(() => {
  rmSync(dir, { recursive: true, force: true });
});
let files = 0;
function saved(bytes: Buffer): string {
  const path = join(dir, `book-${++files}.xlsx`);
  writeFileSync(path, bytes);
  return path;
}

const main = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const rels = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** A workbook written part by part: the sheets in tab order, each pointing at the part file it names. */
function handWritten(sheets: { name: string; part: string; xml: string }[], sharedStrings?: string): string {
  return saved(
    writeZip([
      [
        'xl/workbook.xml',
        `<workbook xmlns="${main}" xmlns:r="${rels}"><sheets>${sheets.map((sheet, i) => `<sheet name="${sheet.name}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('')}</sheets></workbook>`,
      ],
      [
        'xl/_rels/workbook.xml.rels',
        `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${sheets.map((sheet, i) => `<Relationship Id="rId${i + 1}" Type="${rels}/worksheet" Target="${sheet.part}"/>`).join('')}</Relationships>`,
      ],
      ...sheets.map((sheet): [string, string] => [`xl/${sheet.part}`, sheet.xml]),
      ...(sharedStrings === undefined ? [] : [['xl/sharedStrings.xml', sharedStrings] as [string, string]]),
    ]),
  );
}
const worksheet = (rows: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<worksheet xmlns="${main}"><sheetData>${rows}</sheetData></worksheet>`;

/** One part of a zip as text, read with yauzl rather than the reader under test. */
async function partOf(bytes: Buffer, name: string): Promise<string> {
  const zip = await yauzl.fromBufferPromise(bytes, { lazyEntries: true });
  try {
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName !== name) continue;
      const chunks: Buffer[] = [];
      for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    }
    throw new Error(`no ${name}`);
  } finally {
    zip.close();
  }
}

async function rowsOf(path: string, sheet: string): Promise<XlsxRow[]> {
  return (await readXlsxSheets(path, [sheet])).get(sheet) ?? [];
}

async function refusal(path: string, sheet = 'Hoja1'): Promise<string> {
  const error: unknown = await rowsOf(path, sheet).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof XlsxError, `expected an XlsxError, got ${String(error)}`);
  assert.doesNotMatch(error.message, /\n/);
  return error.message;
}

describe('xlsx round trip', () => {
  it('reads back exactly what it wrote: accents, markup characters, spaces, numbers and gaps', async () => {
    const rows: XlsxCellValue[][] = [
      ['RNCEmisor', 'Razón Social', 'Año', 'Monto'],
      ['101010101', 'Ñoño & Hijos <S.R.L.> "La Peña"', 1430, 12.5],
      ['  leading', 'trailing  ', '#e', '1430', null, undefined, -0, 0.1 + 0.2],
      [],
      [null, 'line\r\nbreak\tand tab', '_x0041_ stays literal', '😀 astral', 1e21],
    ];
    const bytes = writeXlsx([
      { name: 'ECF', rows },
      { name: 'Otra hoja', rows: [[undefined, 'sola']] },
    ]);
    const path = saved(bytes);
    const workbook = await openXlsx(path);
    try {
      assert.deepEqual(workbook.sheetNames, ['ECF', 'Otra hoja']);
    } finally {
      workbook.close();
    }
    const sheets = await readXlsxSheets(path, ['ECF', 'Otra hoja']);
    assert.deepEqual(sheets.get('ECF'), [
      { number: 1, cells: ['RNCEmisor', 'Razón Social', 'Año', 'Monto'] },
      { number: 2, cells: ['101010101', 'Ñoño & Hijos <S.R.L.> "La Peña"', '1430', '12.5'] },
      { number: 3, cells: ['  leading', 'trailing  ', '#e', '1430', undefined, undefined, '0', '0.30000000000000004'] },
      { number: 5, cells: [undefined, 'line\r\nbreak\tand tab', '_x0041_ stays literal', '😀 astral', '1e+21'] },
    ]);
    assert.deepEqual(sheets.get('Otra hoja'), [{ number: 1, cells: [undefined, 'sola'] }]);

    // What Excel needs to see: texts as shared strings (even "1430"), numbers as numeric cells, edge spaces kept.
    const sheetXml = await partOf(bytes, 'xl/worksheets/sheet1.xml');
    assert.match(sheetXml, /<c r="D3" t="s"><v>\d+<\/v><\/c>/);
    assert.match(sheetXml, /<c r="C2"><v>1430<\/v><\/c><c r="D2"><v>12.5<\/v><\/c>/);
    assert.doesNotMatch(sheetXml, /r="E3"|r="F3"|<row r="4"/);
    const sst = await partOf(bytes, 'xl/sharedStrings.xml');
    assert.match(sst, /<t xml:space="preserve"> {2}leading<\/t>.*<t xml:space="preserve">trailing {2}<\/t>/);
    assert.match(sst, /<t>Ñoño &amp; Hijos &lt;S\.R\.L\.&gt; &quot;La Peña&quot;<\/t>/);
    assert.match(sst, /<t>line_x000D_\nbreak\tand tab<\/t><\/si><si><t>_x005F_x0041_ stays literal<\/t>/);
  });

  it('round-trips a 25 × 5,215 sheet of repeated labels, and shared strings keep it small', async () => {
    const width = 5_215;
    const rows = Array.from({ length: 25 }, (_, r) =>
      Array.from({ length: width }, (_, c) => (c % 7 === 3 ? r * c : `campo ${c % 40}`)),
    );
    const bytes = writeXlsx([{ name: 'Ancho', rows }]);
    assert.ok(bytes.length < 2_000_000, `${bytes.length} bytes`);
    assert.match(await partOf(bytes, 'xl/sharedStrings.xml'), /uniqueCount="40"/);
    const read = await rowsOf(saved(bytes), 'Ancho');
    assert.equal(read.length, 25);
    read.forEach((row, r) => {
      assert.equal(row.number, r + 1);
      assert.deepEqual(row.cells, rows[r]?.map(String));
    });
  });

  it('writes a zip that Python zipfile finds sound, of parts that Python expat finds well formed', (context) => {
    const path = saved(
      writeXlsx([
        {
          name: 'Señal',
          rows: [
            ['á & <b>', 1],
            [null, '  x '],
          ],
        },
        { name: 'Dos', rows: [] },
      ]),
    );
    const script = [
      'import zipfile, sys, xml.etree.ElementTree as ET',
      'z = zipfile.ZipFile(sys.argv[1])',
      'print(z.testzip())',
      'print(all(i.flag_bits & 0x800 for i in z.infolist()))',
      'print(sorted(ET.fromstring(z.read(n)).tag.split("}")[1] for n in z.namelist()))',
    ].join('\n');
    if (!requireTool(context, 'python3')) return;
    const python = spawnSync('python3', ['-c', script, path], { encoding: 'utf8' });
    assert.equal(python.stderr, '');
    assert.equal(
      python.stdout,
      "None\nTrue\n['Relationships', 'Relationships', 'Types', 'sst', 'styleSheet', 'workbook', 'worksheet', 'worksheet']\n",
    );
  });

  it('names columns A, Z, AA, XFD', () => {
    assert.deepEqual([0, 25, 26, 701, 702, 16_383].map(columnName), ['A', 'Z', 'AA', 'ZZ', 'AAA', 'XFD']);
  });

  const unwritable: [string, XlsxCellValue][] = [
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a NUL character', 'a\u0000b'],
    ['a lone surrogate', '\uD800'],
    ['U+FFFE', '\uFFFE'],
  ];
  for (const [name, value] of unwritable) {
    it(`refuses to write ${name}`, () => {
      assert.throws(() => writeXlsx([{ name: 'ECF', rows: [[value]] }]), RangeError);
    });
  }
  it('refuses sheet names Excel refuses', () => {
    for (const name of ['', 'a/b', 'x'.repeat(32), "'quoted'"])
      assert.throws(() => writeXlsx([{ name, rows: [] }]), RangeError, name);
    assert.throws(
      () =>
        writeXlsx([
          { name: 'ECF', rows: [] },
          { name: 'ecf', rows: [] },
        ]),
      /two sheets/,
    );
  });
});

describe('xlsx reader', () => {
  it('maps sheet names to parts through the workbook relationships, not by part name', async () => {
    const path = handWritten([
      {
        name: 'Resumen',
        part: 'worksheets/sheet2.xml',
        xml: worksheet('<row r="1"><c r="A1" t="inlineStr"><is><t>resumen</t></is></c></row>'),
      },
      {
        name: 'ECF',
        part: 'worksheets/sheet1.xml',
        xml: worksheet('<row r="1"><c r="A1" t="inlineStr"><is><t>ecf</t></is></c></row>'),
      },
    ]);
    const workbook = await openXlsx(path);
    try {
      assert.deepEqual(workbook.sheetNames, ['Resumen', 'ECF']);
    } finally {
      workbook.close();
    }
    assert.deepEqual(await rowsOf(path, 'ECF'), [{ number: 1, cells: ['ecf'] }]);
  });

  it('reads inline strings, formula strings, booleans, errors, rich and phonetic shared strings, and Excel escapes', async () => {
    const sst = `<sst xmlns="${main}"><si><r><rPr><b/></rPr><t>Rich</t></r><r><t xml:space="preserve"> text </t></r><rPh><t>ignored</t></rPh></si><si><t>a_x000D_b _x005F_x0041_</t></si></sst>`;
    const path = handWritten(
      [
        {
          name: 'Hoja1',
          part: 'worksheets/data.xml',
          xml: worksheet(
            '<row r="2" spans="1:9"><c r="A2" t="s"><v>0</v></c><c t="s"><v>1</v></c><c r="D2" t="inlineStr"><is><r><t>in</t></r><r><t>line</t></r></is></c>' +
              '<c r="E2" t="str"><f>A1&amp;"x"</f><v>R&#xe9;sultat &lt;1&gt;</v></c><c r="F2" t="b"><v>1</v></c><c r="G2" t="b"><v>0</v></c><c r="H2" t="e"><v>#N/A</v></c><c r="I2" s="3"/></row>' +
              '<row><c r="AA3"><v>007</v></c><c r="B3" t="inlineStr"><is><t><![CDATA[<raw> & ]]></t></is></c></row><row r="9" ht="20" customHeight="1"><c r="A9" s="1"/></row>',
          ),
        },
      ],
      sst,
    );
    assert.deepEqual(await rowsOf(path, 'Hoja1'), [
      {
        number: 2,
        cells: ['Rich text ', 'a\rb _x0041_', undefined, 'inline', 'Résultat <1>', 'TRUE', 'FALSE', '#N/A'],
      },
      { number: 3, cells: [undefined, '<raw> & ', ...Array<undefined>(24).fill(undefined), '007'] },
    ]);
  });

  it('streams rows as the caller pulls them and stops cleanly when the caller stops', async () => {
    const path = saved(writeXlsx([{ name: 'ECF', rows: Array.from({ length: 5_000 }, (_, i) => [`fila ${i}`]) }]));
    const workbook = await openXlsx(path);
    const seen: string[] = [];
    try {
      for await (const row of workbook.rows('ECF')) {
        seen.push(row.cells[0] ?? '');
        if (seen.length === 3) break;
      }
    } finally {
      workbook.close();
    }
    assert.deepEqual(seen, ['fila 0', 'fila 1', 'fila 2']);
  });

  it('refuses random bytes, saying it is not a zip', async () => {
    const message = await refusal(saved(Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256))));
    assert.match(message, /not a zip/);
  });

  it('refuses a legacy .xls, saying so', async () => {
    assert.match(
      await refusal(saved(Buffer.concat([Buffer.from('d0cf11e0a1b11ae1', 'hex'), Buffer.alloc(1024)]))),
      /legacy \.xls/,
    );
  });

  it('refuses an empty zip', async () => {
    const endOfCentralDirectory = Buffer.concat([Buffer.from('504b0506', 'hex'), Buffer.alloc(18)]);
    assert.match(await refusal(saved(endOfCentralDirectory)), /empty zip/);
  });

  it('refuses a zip without xl/workbook.xml', async () => {
    assert.match(await refusal(saved(writeZip([['hello.txt', 'hi']]))), /no xl\/workbook\.xml/);
  });

  it('names the sheet a workbook lacks, and the sheets it has', async () => {
    const message = await refusal(saved(writeXlsx([{ name: 'Hoja1', rows: [['x']] }])), 'ECF');
    assert.match(message, /no sheet named "ECF" \(its sheets: "Hoja1"\)/);
  });

  const hostile: [string, string][] = [
    [
      'a DOCTYPE',
      `<?xml version="1.0"?><!DOCTYPE worksheet [<!ENTITY x SYSTEM "file:///etc/hostname">]>${worksheet('<row><c t="str"><v>&x;</v></c></row>').replace(/^<\?xml[^>]*>\n/, '')}`,
    ],
    ['a lower-case doctype', `<!doctype worksheet>${worksheet('')}`],
    ['an ENTITY declaration', `${worksheet('')}<!ENTITY lol "lol">`],
  ];
  for (const [name, xml] of hostile) {
    it(`refuses a sheet part holding ${name}`, async () => {
      const message = await refusal(handWritten([{ name: 'Hoja1', part: 'worksheets/sheet1.xml', xml }]));
      assert.match(message, /xl\/worksheets\/sheet1\.xml .*declares a DTD or an entity/);
    });
  }

  const malformed: [string, string][] = [
    ['an unclosed element', `<worksheet xmlns="${main}"><sheetData><row>`],
    ['crossed tags', `<worksheet><sheetData><row></sheetData></row></worksheet>`],
    ['an unknown entity', worksheet('<row><c t="str"><v>&nbsp;</v></c></row>')],
    ['a bare ampersand', worksheet('<row><c t="str"><v>a & b</v></c></row>')],
    ['an unquoted attribute', worksheet('<row r=1><c><v>1</v></c></row>')],
    ['text after the root', `${worksheet('')}trailing`],
    ['a shared string the workbook lacks', worksheet('<row><c t="s"><v>4</v></c></row>')],
    ['a column past XFD', worksheet('<row><c r="XFE1"><v>1</v></c></row>')],
  ];
  for (const [name, xml] of malformed) {
    it(`refuses a sheet with ${name}`, async () => {
      await refusal(handWritten([{ name: 'Hoja1', part: 'worksheets/sheet1.xml', xml }]));
    });
  }

  it('stops inflating a part that passes the size bound', async () => {
    const path = saved(writeXlsx([{ name: 'Hoja1', rows: Array.from({ length: 200 }, (_, i) => [i]) }]));
    assert.equal((await rowsOf(path, 'Hoja1')).length, 200);
    const error: unknown = await readXlsxSheets(path, ['Hoja1'], { maxPartBytes: 1_000 }).catch(
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof XlsxError);
    assert.match(error.message, /xl\/worksheets\/sheet1\.xml .*inflates past 1000 bytes/);
  });
});

describe('xml scanner', () => {
  it('gives the same elements and text whatever the chunk boundaries', () => {
    const xml = `\uFEFF<?xml version="1.0"?><!-- c --><x:root xmlns:x="u" a='1 > 0'><x:c r="A1">caf&#xE9; &amp; t&#233;<![CDATA[ <&> ]]></x:c><e/>\r\nend</x:root>\n`;
    const scan = (size: number) => {
      const events: string[] = [];
      const scanner = new XmlScanner(
        {
          open: (name, attributes) => events.push(`<${name} ${JSON.stringify([...attributes])}`),
          close: (name) => events.push(`/${name}`),
          text: (text) => events.push(text),
        },
        (detail) => new Error(detail),
      );
      for (let at = 0; at < xml.length; at += size) scanner.write(xml.slice(at, at + size));
      scanner.end();
      return events
        .filter((event) => event !== '')
        .join('|')
        .replace(/\|(?=[^</])/g, ''); // text may arrive split
    };
    const whole = scan(xml.length);
    assert.equal(whole, '<root [["xmlns:x","u"],["a","1 > 0"]]|<c [["r","A1"]]café & té <&> |/c|<e []|/e\nend|/root');
    for (const size of [1, 2, 3, 5, 8, 13]) assert.equal(scan(size), whole, `chunks of ${size}`);
  });
});
