// DGII's fifteen official XSDs, read from ../shared/dgii/xsd: they compile only once repaired, and DGII's own
// sample documents get the verdicts the README records.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { XmlDocument } from 'libxml2-wasm';
import {
  compileSchemaSet,
  compileXsd,
  detectKind,
  repairSchema,
  SchemaCompileError,
  schemaKinds,
} from '../../fiscal/xsd/index.js';
import { ecfNote, readDgiiSample, readOfficialXsds, validEcf31 } from '../../../test/support/dgii-files.js';

const files = readOfficialXsds();
const set = compileSchemaSet(files);
after(() => {
  set.dispose();
});

function official(fileName: string): string {
  const text = files.get(fileName);
  if (text === undefined) throw new Error(`${fileName} is not in the official directory`);
  return text;
}

describe('the official XSDs', () => {
  // README, "Known defects of the official files": which file needs which repair, and how many times.
  const expectedRepairs: Record<string, RegExp[]> = {
    'e-CF-31.xsd': [
      /^e-CF-31\.xsd:476: trimmed the name " IndicadorServicioTodoIncluidoType" to "IndicadorServicioTodoIncluidoType"$/,
    ],
    'RFCE-32.xsd': Array.from({ length: 4 }, () => /^RFCE-32\.xsd:\d+: replaced 1 "\(\?:" with "\("/),
    'ACECF.xsd': [/^ACECF\.xsd:72: replaced 1 "\(\?:" with "\("/],
    'e-CF-33.xsd': [/^e-CF-33\.xsd:1525: dropped the "\^" and "\$" anchors of the pattern "\^\[a-zA-Z/],
    'e-CF-34.xsd': [/^e-CF-34\.xsd:1473: dropped the "\^" and "\$" anchors of the pattern "\^\[a-zA-Z/],
  };

  it('are fifteen, one per kind', () => {
    assert.deepEqual([...files.keys()].sort(), schemaKinds.map((kind) => `${kind}.xsd`).sort());
  });

  for (const fileName of [...files.keys()].sort()) {
    const expected = expectedRepairs[fileName] ?? [];
    it(`${fileName} compiles after ${expected.length} repair(s)`, () => {
      const { text, repairs } = repairSchema(fileName, official(fileName));
      assert.equal(repairs.length, expected.length, repairs.join('\n'));
      expected.forEach((pattern, i) => {
        assert.match(repairs[i] ?? '', pattern);
      });
      compileXsd(fileName, text).dispose();
    });
  }

  it('the set reports every repair, eight in all', () => {
    assert.equal(set.repairs.length, 8);
  });

  const unpublishable: [string, RegExp][] = [
    ['e-CF-31.xsd', /'IndicadorServicioTodoIncluidoType' does not resolve/],
    ['RFCE-32.xsd', /\(\?:19\|20\).* is not a valid regular expression/],
    ['ACECF.xsd', /\(\?:20\|20\).* is not a valid regular expression/],
  ];
  for (const [fileName, problem] of unpublishable) {
    it(`${fileName} as published does not compile, and the error says why`, () => {
      assert.throws(
        () => compileXsd(fileName, official(fileName)),
        (error: unknown) => {
          assert.ok(error instanceof SchemaCompileError);
          assert.equal(error.fileName, fileName);
          assert.match(error.message, problem);
          return true;
        },
      );
    });
  }

  // The anchored pattern compiles (^ and $ are literals in XSD) but then refuses every ordinary name.
  for (const type of [33, 34] as const) {
    it(`e-CF-${type}.xsd as published refuses a plain ResponsablePago that the repaired one accepts`, () => {
      const xml = ecfNote(type, 'Juan Perez');
      assert.deepEqual(set.validate(`e-CF-${type}`, xml), []);
      const published = compileXsd(`e-CF-${type}.xsd`, official(`e-CF-${type}.xsd`));
      const doc = XmlDocument.fromString(xml);
      try {
        assert.throws(() => {
          published.validator.validate(doc);
        }, /Element 'ResponsablePago'.*not accepted by the pattern/);
      } finally {
        doc.dispose();
        published.dispose();
      }
    });
  }
});

describe('DGII samples against the official XSDs', () => {
  it('the signed e-CF 31 fails only on TotalPaginas = 1', () => {
    const findings = set.validate('e-CF-31', readDgiiSample('130359334E310000008928.xml'));
    assert.equal(findings.length, 1);
    assert.equal(findings[0]?.path, '/ECF/Encabezado/IdDoc/TotalPaginas');
    assert.equal(findings[0].code, 'xsd_invalid');
    assert.match(findings[0].message, /'TotalPaginas'.*must be greater than '1'/);
  });

  it('the signed e-CF 31 passes once TotalPaginas is removed', () => {
    assert.deepEqual(set.validate('e-CF-31', validEcf31()), []);
  });

  it('the signed e-CF 31 passes as bytes too', () => {
    assert.deepEqual(set.validate('e-CF-31', new TextEncoder().encode(validEcf31())), []);
  });

  it('the indented, signed ARECF passes', () => {
    const xml = readDgiiSample('customer_receipt.xml');
    assert.equal(detectKind(xml), 'ARECF');
    assert.deepEqual(set.validate('ARECF', xml), []);
  });

  it('the seed with a BOM passes Semilla', () => {
    const xml = readDgiiSample('seed-test_140133.xml');
    assert.equal(detectKind(xml), 'Semilla');
    assert.deepEqual(set.validate('Semilla', xml), []);
  });

  // The ACECF "sample" is the multipart body DGII's simulator delivers, not a bare document.
  it('the simulator ACECF body is not XML as a whole', () => {
    const findings = set.validate('ACECF', readDgiiSample('commercial_approval_response.xml'));
    assert.deepEqual(
      findings.map((finding) => finding.code),
      ['xml_malformed'],
    );
  });

  // DGII's own simulator writes MontoTotal 35400, which ACECF's Decimal18D2Validation pattern (two decimals,
  // mandatory) refuses: the one difference between the simulator's output and the schema.
  it('the ACECF inside that body fails only on MontoTotal without decimals', () => {
    const body = readDgiiSample('commercial_approval_response.xml');
    const xml = body.slice(body.indexOf('<?xml'), body.lastIndexOf('</ACECF>') + '</ACECF>'.length);
    assert.equal(detectKind(xml), 'ACECF');
    const findings = set.validate('ACECF', xml);
    assert.deepEqual(
      findings.map((finding) => finding.path),
      ['/ACECF/DetalleAprobacionComercial/MontoTotal'],
    );
    assert.deepEqual(
      set.validate('ACECF', xml.replace('<MontoTotal>35400</MontoTotal>', '<MontoTotal>35400.00</MontoTotal>')),
      [],
    );
  });
});
