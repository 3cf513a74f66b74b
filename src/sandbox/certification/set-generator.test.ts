// The certification set the sandbox's portal hands out: DGII's composition, one seeded content, and every e-CF of
// it a document the service builds verbatim and DGII would accept (model, fiscal rules, totals, official XSD); the
// RFCE cases are what buildRfce writes from those 32s once signed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readOfficialXsds } from '../../../test/support/dgii-files.js';
import { testSigningKey } from '../../../test/support/xmldsig-kit.js';
import { requireTool } from '../../../test/support/tools.js';
import { validateWithOfficialXsd } from '../../../test/support/xmllint.js';
import { buildEcf, normaliseEcf, type ServiceOwnedFields } from '../../fiscal/build/index.js';
import type { EcfType } from '../../fiscal/model/ecf-model-types.js';
import { parseXmlTree, type XmlTree } from '../../fiscal/parse/index.js';
import { buildRfce } from '../../fiscal/responses/rfce.js';
import { checkFiscalRules } from '../../fiscal/rules/index.js';
import { isValidRnc } from '../../fiscal/taxpayer-id.js';
import { validateEcfDocument } from '../../fiscal/validate-ecf.js';
import { signCanonicalDocument } from '../../fiscal/xmldsig/index.js';
import { compileSchemaSet, type SchemaSet } from '../../fiscal/xsd/index.js';
import { generateCertificationSet, type GeneratedCase } from './set-generator.js';

type Json = Record<string, unknown>;

const rnc = '131880681';
const now = new Date('2026-06-15T16:00:00Z'); // 12:00 in Santo Domingo
const fechaHoraFirma = '15-06-2026 11:30:00';
const set = generateCertificationSet({ rnc, now });
const ecfCases = set.filter((entry) => entry.kind === 'ECF');
const rfceCases = set.filter((entry) => entry.kind === 'RFCE');

let schemas: SchemaSet;
before(() => {
  schemas = compileSchemaSet(readOfficialXsds());
});
after(() => {
  schemas.dispose();
});

function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function at(value: unknown, ...path: string[]): unknown {
  return path.reduce<unknown>((current, name) => (isJson(current) ? current[name] : undefined), value);
}

function text(value: unknown, ...path: string[]): string | undefined {
  const leaf = at(value, ...path);
  return typeof leaf === 'string' ? leaf : undefined;
}

function items(entry: GeneratedCase): Json[] {
  return at(entry.payload, 'DetallesItems', 'Item') as Json[];
}

const encf = (entry: GeneratedCase) => text(entry.payload, 'Encabezado', 'IdDoc', 'eNCF');
const montoTotal = (entry: GeneratedCase) => Number(text(entry.payload, 'Encabezado', 'Totales', 'MontoTotal'));
const ofType = (cases: readonly GeneratedCase[], type: EcfType) => cases.filter((entry) => entry.ecfType === type);

/** Every leaf with its path (indices left out), in document order. */
function leaves(value: unknown, path = ''): [string, unknown][] {
  if (Array.isArray(value)) return value.flatMap((entry) => leaves(entry, path));
  if (isJson(value)) return Object.entries(value).flatMap(([name, child]) => leaves(child, `${path}/${name}`));
  return [[path, value]];
}

function treeLeaves(tree: XmlTree, path = ''): [string, unknown][] {
  return Object.entries(tree).flatMap(([name, occurrences]) =>
    occurrences.flatMap((occurrence): [string, unknown][] =>
      typeof occurrence === 'string' ? [[`${path}/${name}`, occurrence]] : treeLeaves(occurrence, `${path}/${name}`),
    ),
  );
}

/** The payload without the fields the set fixes but a client request may not carry, and those fields as owned. */
function splitOwned(payload: Json): { document: Json; owned: ServiceOwnedFields } {
  const document = structuredClone(payload);
  const idDoc = at(document, 'Encabezado', 'IdDoc') as Json;
  const { eNCF, FechaVencimientoSecuencia } = idDoc;
  delete idDoc['eNCF'];
  delete idDoc['FechaVencimientoSecuencia'];
  assert.equal(typeof eNCF, 'string');
  return {
    document,
    owned: {
      eNCF: eNCF as string,
      ...(typeof FechaVencimientoSecuencia === 'string'
        ? { fechaVencimientoSecuencia: FechaVencimientoSecuencia }
        : {}),
      fechaHoraFirma,
    },
  };
}

function signedEcf(entry: GeneratedCase): string {
  const { document, owned } = splitOwned(entry.payload);
  const built = buildEcf(document, owned);
  assert.ok(built.ok, built.ok ? '' : JSON.stringify(built.findings));
  return signCanonicalDocument(built.xml, testSigningKey());
}

function days(date: string | undefined): number {
  const [day, month, year] = (date ?? '').split('-').map(Number);
  return Date.UTC(year ?? 0, (month ?? 1) - 1, day ?? 0) / 86_400_000;
}

describe('the certification set: composition', () => {
  it("has DGII's 25 e-CF in set order, then 4 RFCE", () => {
    assert.deepEqual(
      set.map((entry) => `${entry.kind} ${entry.ecfType}`),
      [
        ...['31', '31', '31', '31', '32', '32', '32', '32', '32', '32', '33', '34', '34'],
        ...['41', '41', '43', '43', '44', '44', '45', '45', '46', '46', '47', '47'],
      ]
        .map((type) => `ECF ${type}`)
        .concat(['RFCE 32', 'RFCE 32', 'RFCE 32', 'RFCE 32']),
    );
  });

  it('has two type 32 of DOP 250,000.00 or more, and an RFCE with the same key for each of the four under it', () => {
    const consumer = ofType(ecfCases, '32');
    assert.equal(consumer.filter((entry) => montoTotal(entry) >= 250000).length, 2);
    const small = consumer.filter((entry) => montoTotal(entry) < 250000);
    assert.equal(small.length, 4);
    assert.deepEqual(
      rfceCases.map((entry) => entry.caseKey),
      small.map((entry) => entry.caseKey),
    );
  });

  it('keys each case by RNCEmisor + eNCF (22 characters, unique per kind), numbering each type from 1 in set order', () => {
    for (const cases of [ecfCases, rfceCases]) {
      assert.equal(new Set(cases.map((entry) => entry.caseKey)).size, cases.length);
    }
    for (const entry of set) {
      assert.equal(entry.caseKey.length, 22, entry.caseKey);
      assert.equal(entry.caseKey, `${rnc}${encf(entry) ?? ''}`);
      assert.equal(text(entry.payload, 'Encabezado', 'Emisor', 'RNCEmisor'), rnc);
    }
    const types: EcfType[] = ['31', '32', '33', '34', '41', '43', '44', '45', '46', '47'];
    for (const type of types) {
      assert.deepEqual(
        ofType(ecfCases, type).map(encf),
        ofType(ecfCases, type).map((_, index) => `E${type}${String(index + 1).padStart(10, '0')}`),
      );
    }
  });

  it('writes every leaf as a non-empty string, as a spreadsheet cell holds text', () => {
    const odd = set.flatMap((entry) =>
      leaves(entry.payload)
        .filter(([, value]) => typeof value !== 'string' || value === '')
        .map(([path]) => `${entry.caseKey}${path}`),
    );
    assert.deepEqual(odd, []);
  });

  it('gives the same bytes for the same input, and other content for another seed', () => {
    assert.equal(JSON.stringify(generateCertificationSet({ rnc, now, seed: 1 })), JSON.stringify(set));
    const other = generateCertificationSet({ rnc, now, seed: 2 });
    assert.deepEqual(generateCertificationSet({ rnc, now, seed: 2 }), other);
    assert.notDeepEqual(other, set);
    assert.deepEqual(
      other.map((entry) => entry.caseKey),
      set.map((entry) => entry.caseKey),
      'the seed varies the content, not the keys',
    );
  });

  it("starts each type's e-NCF where sequenceStart says (one number for all, or per type), changing nothing else", () => {
    const moved = generateCertificationSet({ rnc, now, sequenceStart: { '31': 5, '34': 3 } });
    assert.deepEqual(
      ofType(
        moved.filter((entry) => entry.kind === 'ECF'),
        '31',
      ).map(encf),
      ['E310000000005', 'E310000000006', 'E310000000007', 'E310000000008'],
    );
    assert.deepEqual(
      ofType(
        moved.filter((entry) => entry.kind === 'ECF'),
        '34',
      ).map(encf),
      ['E340000000003', 'E340000000004'],
    );
    assert.equal(encf(ofType(moved, '41')[0] ?? set[0]!), 'E410000000001');
    // The notes follow their invoices' new numbers.
    const note = moved.find((entry) => entry.ecfType === '33');
    assert.equal(text(note?.payload, 'InformacionReferencia', 'NCFModificado'), 'E310000000005');
    const strip = (cases: readonly GeneratedCase[]) => JSON.stringify(cases).replace(/E\d{12}/g, 'E');
    assert.equal(strip(moved), strip(set));
    assert.deepEqual(ofType(generateCertificationSet({ rnc, now, sequenceStart: 1000 }), '47').map(encf), [
      'E470000001000',
      'E470000001001',
    ]);
    assert.throws(() => generateCertificationSet({ rnc, now, sequenceStart: 0 }), RangeError);
  });
});

describe("the certification set: what DGII's sets carry", () => {
  it('fixes FechaVencimientoSecuencia (31-12 of next year) on every type but 32 and 34, and leaves FechaHoraFirma to the signer', () => {
    for (const entry of ecfCases) {
      const expected = entry.ecfType === '32' || entry.ecfType === '34' ? undefined : '31-12-2027';
      assert.equal(text(entry.payload, 'Encabezado', 'IdDoc', 'FechaVencimientoSecuencia'), expected, entry.caseKey);
      assert.equal(at(entry.payload, 'FechaHoraFirma'), undefined);
    }
  });

  it('dates every e-CF in the past, on varied days', () => {
    const dates = ecfCases.map((entry) => text(entry.payload, 'Encabezado', 'Emisor', 'FechaEmision') ?? '');
    for (const date of dates) assert.match(date, /^\d{2}-\d{2}-2020$/);
    assert.ok(new Set(dates).size > 10);
  });

  it("uses DGII's placeholder issuer texts and fictitious buyers with valid check digits", () => {
    for (const entry of ecfCases) {
      assert.equal(text(entry.payload, 'Encabezado', 'Emisor', 'RazonSocialEmisor'), 'DOCUMENTOS ELECTRONICOS DE 02');
      const buyer = text(entry.payload, 'Encabezado', 'Comprador', 'RNCComprador');
      if (buyer !== undefined) {
        assert.ok(isValidRnc(buyer), buyer);
        assert.notEqual(buyer, rnc);
      }
    }
  });

  it('gives 43 and 47 no RNCComprador, 47 a foreign id, and 41, 43 and 47 no TipoIngresos', () => {
    for (const entry of ecfCases) {
      const type = entry.ecfType;
      if (type === '43' || type === '47')
        assert.equal(text(entry.payload, 'Encabezado', 'Comprador', 'RNCComprador'), undefined);
      if (type === '47')
        assert.match(text(entry.payload, 'Encabezado', 'Comprador', 'IdentificadorExtranjero') ?? '', /^[A-Z]{2}-/);
      assert.equal(
        text(entry.payload, 'Encabezado', 'IdDoc', 'TipoIngresos') === undefined,
        ['41', '43', '47'].includes(type),
        entry.caseKey,
      );
    }
  });

  it("shows the variety of DGII's sets: many lines, a line discount, several payment forms, 4-decimal prices, additional taxes", () => {
    assert.ok(ecfCases.some((entry) => items(entry).length >= 10));
    const discounted = ecfCases.flatMap(items).find((item) => item['DescuentoMonto'] !== undefined);
    assert.ok(discounted !== undefined);
    const subDiscounts = at(discounted, 'TablaSubDescuento', 'SubDescuento');
    assert.ok(Array.isArray(subDiscounts), 'a repeated element is an array');
    assert.equal(text(subDiscounts[0], 'MontoSubDescuento'), discounted['DescuentoMonto']);
    assert.ok(
      ofType(ecfCases, '32').some(
        (entry) =>
          ((at(entry.payload, 'Encabezado', 'IdDoc', 'TablaFormasPago', 'FormaDePago') as Json[] | undefined) ?? [])
            .length >= 2,
      ),
    );
    assert.ok(ecfCases.flatMap(items).some((item) => /^\d+\.\d{4}$/.test(String(item['PrecioUnitarioItem']))));
    assert.ok(
      ecfCases.some((entry) => at(entry.payload, 'Encabezado', 'Totales', 'ImpuestosAdicionales') !== undefined),
    );
  });

  it('makes 46 an export at ITBIS 0 %, 44 exempt sales to an identified buyer, 45 a sale to the government', () => {
    for (const entry of ofType(ecfCases, '46')) {
      assert.ok(items(entry).every((item) => item['IndicadorFacturacion'] === '3'));
      assert.equal(text(entry.payload, 'Encabezado', 'Totales', 'ITBIS3'), '0');
      assert.equal(
        text(entry.payload, 'Encabezado', 'Totales', 'MontoGravadoI3'),
        text(entry.payload, 'Encabezado', 'Totales', 'MontoTotal'),
      );
    }
    for (const entry of ofType(ecfCases, '44')) {
      assert.ok(items(entry).every((item) => item['IndicadorFacturacion'] === '4'));
      assert.ok(text(entry.payload, 'Encabezado', 'Comprador', 'RNCComprador') !== undefined);
    }
    for (const entry of ofType(ecfCases, '45')) {
      assert.match(text(entry.payload, 'Encabezado', 'Comprador', 'RNCComprador') ?? '', /^4/);
      assert.equal(text(entry.payload, 'Encabezado', 'IdDoc', 'IndicadorMontoGravado'), '0');
    }
  });

  it('retains ITBIS and ISR on every line of the 41s, ISR on every line of the 47s, with their totals', () => {
    for (const entry of ofType(ecfCases, '41')) {
      for (const item of items(entry)) {
        assert.ok(
          text(item, 'Retencion', 'MontoITBISRetenido') !== undefined &&
            text(item, 'Retencion', 'MontoISRRetenido') !== undefined,
        );
      }
      assert.ok(text(entry.payload, 'Encabezado', 'Totales', 'TotalITBISRetenido') !== undefined);
      assert.ok(text(entry.payload, 'Encabezado', 'Totales', 'TotalISRRetencion') !== undefined);
    }
    for (const entry of ofType(ecfCases, '47')) {
      const retained = items(entry).map((item) => Number(text(item, 'Retencion', 'MontoISRRetenido')));
      assert.ok(retained.every((amount) => amount > 0));
      assert.equal(
        Number(text(entry.payload, 'Encabezado', 'Totales', 'TotalISRRetencion')).toFixed(2),
        retained.reduce((a, b) => a + b, 0).toFixed(2),
      );
    }
  });

  it('makes every note modify an e-CF of the set with the same buyer, dated the day before, a 34 for no more than it', () => {
    for (const note of [...ofType(ecfCases, '33'), ...ofType(ecfCases, '34')]) {
      const reference = ecfCases.find(
        (entry) => encf(entry) === text(note.payload, 'InformacionReferencia', 'NCFModificado'),
      );
      assert.ok(reference !== undefined, note.caseKey);
      assert.ok(['31', '32'].includes(reference.ecfType), 'without the defect, notes modify invoices');
      assert.equal(
        text(note.payload, 'Encabezado', 'Comprador', 'RNCComprador'),
        text(reference.payload, 'Encabezado', 'Comprador', 'RNCComprador'),
      );
      assert.ok(text(note.payload, 'Encabezado', 'Comprador', 'RNCComprador') !== undefined);
      const referenceDate = text(reference.payload, 'Encabezado', 'Emisor', 'FechaEmision');
      assert.equal(text(note.payload, 'InformacionReferencia', 'FechaNCFModificado'), referenceDate);
      assert.equal(days(text(note.payload, 'Encabezado', 'Emisor', 'FechaEmision')) - days(referenceDate), 1);
      assert.ok(text(note.payload, 'InformacionReferencia', 'RazonModificacion') !== undefined);
      assert.equal(text(note.payload, 'Encabezado', 'IdDoc', 'TipoIngresos'), '01');
      if (note.ecfType === '34')
        assert.ok(
          montoTotal(note) <= montoTotal(reference),
          `${note.caseKey} ${String(montoTotal(note))} > ${String(montoTotal(reference))}`,
        );
      else assert.notEqual(text(note.payload, 'InformacionReferencia', 'CodigoModificacion'), '1');
    }
  });
});

describe("the certification set with DGII's defective 34 (type34_without_tipo_ingresos)", () => {
  const defective = generateCertificationSet({ rnc, now, defects: ['type34_without_tipo_ingresos'] });
  const creditNotes = ofType(
    defective.filter((entry) => entry.kind === 'ECF'),
    '34',
  );

  it('has exactly one 34 without TipoIngresos, which modifies a 41 of the set with the same party', () => {
    const without = creditNotes.filter(
      (entry) => text(entry.payload, 'Encabezado', 'IdDoc', 'TipoIngresos') === undefined,
    );
    assert.equal(without.length, 1);
    const [note] = without as [GeneratedCase];
    const reference = defective.find(
      (entry) => entry.kind === 'ECF' && encf(entry) === text(note.payload, 'InformacionReferencia', 'NCFModificado'),
    );
    assert.ok(reference !== undefined);
    assert.equal(reference.ecfType, '41');
    assert.equal(
      text(note.payload, 'Encabezado', 'Comprador', 'RNCComprador'),
      text(reference.payload, 'Encabezado', 'Comprador', 'RNCComprador'),
    );
  });

  it('changes nothing else, and the defect is what the model finds', () => {
    const changed = defective.filter((entry, index) => JSON.stringify(entry) !== JSON.stringify(set[index]));
    assert.deepEqual(
      changed.map((entry) => entry.caseKey),
      [`${rnc}E340000000002`],
    );
    const { document } = splitOwned((changed[0] as GeneratedCase).payload);
    const findings = validateEcfDocument(document, { now }).findings.map(
      (finding) => `${finding.code} ${finding.pointer}`,
    );
    assert.deepEqual(findings, ['missing /Encabezado/IdDoc/TipoIngresos']);
  });
});

describe("every e-CF of the set is built verbatim and passes the model, the fiscal rules, the totals and DGII's XSD", () => {
  for (const seed of [1, 2, 3]) {
    const cases =
      seed === 1 ? ecfCases : generateCertificationSet({ rnc, now, seed }).filter((entry) => entry.kind === 'ECF');
    for (const entry of cases) {
      it(`seed ${String(seed)}: ${entry.caseKey} (${entry.ecfType}, MontoTotal ${String(text(entry.payload, 'Encabezado', 'Totales', 'MontoTotal'))})`, (t) => {
        const { document, owned } = splitOwned(entry.payload);
        assert.deepEqual(
          validateEcfDocument(document, { now }).findings,
          [],
          'model, fiscal rules and totals, without the owned fields',
        );

        const written = normaliseEcf(document, owned);
        assert.ok(written.ok, written.ok ? '' : JSON.stringify(written.findings));
        assert.deepEqual(written.warnings, []);
        const { FechaHoraFirma, ...asWritten } = written.document;
        assert.equal(FechaHoraFirma, fechaHoraFirma);
        // Every value as the model writes it back, in XSD order: a verbatim build keeps each as the set gives it.
        assert.equal(JSON.stringify(asWritten), JSON.stringify(entry.payload));
        assert.deepEqual(
          checkFiscalRules({ ...written.document }, { now }),
          [],
          'the rules on e-NCF, sequence expiry and signing time',
        );

        const built = buildEcf(document, owned);
        assert.ok(built.ok);
        assert.deepEqual(built.warnings, []);
        const signed = signCanonicalDocument(built.xml, testSigningKey());
        assert.deepEqual(schemas.validate(`e-CF-${entry.ecfType}`, signed), []);
        if (seed === 1 && requireTool(t, 'xmllint')) {
          const oracle = validateWithOfficialXsd(`e-CF-${entry.ecfType}.xsd`, signed);
          assert.ok(oracle.valid, oracle.errors);
        }
      });
    }
  }
});

describe('the RFCE cases are what buildRfce writes from their signed 32', () => {
  for (const rfce of rfceCases) {
    it(`${rfce.caseKey}: leaf by leaf, in RFCE-32.xsd order, but for CodigoSeguridadeCF`, () => {
      const ecf = ecfCases.find((entry) => entry.caseKey === rfce.caseKey);
      assert.ok(ecf !== undefined);
      const built = buildRfce(signedEcf(ecf));
      assert.ok(built.ok, built.ok ? '' : JSON.stringify(built.findings));
      const parsed = parseXmlTree(built.xml);
      assert.ok(parsed.ok);
      assert.equal(parsed.root, 'RFCE');
      const written = treeLeaves(parsed.tree).filter(([path]) => path !== '/Encabezado/CodigoSeguridadeCF');
      assert.deepEqual(leaves(rfce.payload), written);
      assert.deepEqual(schemas.validate('RFCE-32', signCanonicalDocument(built.xml, testSigningKey())), []);
    });
  }

  it('copies the buyer, the payment forms and the additional taxes the 32s have', () => {
    const paths = new Set(rfceCases.flatMap((entry) => leaves(entry.payload).map(([path]) => path)));
    for (const path of [
      '/Encabezado/Comprador/RNCComprador',
      '/Encabezado/IdDoc/TablaFormasPago/FormaDePago/MontoPago',
      '/Encabezado/Totales/ImpuestosAdicionales/ImpuestoAdicional/OtrosImpuestosAdicionales',
    ]) {
      assert.ok(paths.has(path), path);
    }
  });
});
