import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readOfficialXsds } from '../../../test/support/dgii-files.js';
import { ecfTypes } from './ecf-model-types.js';
import type { EcfElement, Obligation } from './ecf-model-types.js';
import { dataTypeOf, ecfModel, isInCatalogue } from './ecf-model.js';
import { codigosImpuestoAdicional, monedas, provincias, unidadesMedida } from './generated/catalogues.js';
import { obligations } from './generated/obligations.js';

type Occurrence = readonly [path: string, min: number, max: number];

/** The element declarations of an XSD in document order, read with a plain scan (independent of the generator). */
function declaredElements(xsd: string): Occurrence[] {
  const found: Occurrence[] = [];
  const stack: string[] = [];
  for (const match of xsd.matchAll(/<xs:element\b([^>]*?)(\/?)>|<\/xs:element>/g)) {
    if (match[0] === '</xs:element>') {
      stack.pop();
      continue;
    }
    const attrs = match[1] ?? '';
    const name = /name="([^"]*)"/.exec(attrs)?.[1]?.trim() ?? '';
    const min = Number(/minOccurs="(\d+)"/.exec(attrs)?.[1] ?? '1');
    const max = Number(/maxOccurs="(\d+)"/.exec(attrs)?.[1] ?? '1');
    if (stack.length > 0) found.push([[...stack.slice(1), name].join('/'), min, max]);
    if (match[2] !== '/') stack.push(name);
  }
  return found;
}

function modelElements(elements: readonly EcfElement[]): Occurrence[] {
  return elements.flatMap((e) => [[e.path, e.minOccurs, e.maxOccurs] as const, ...modelElements(e.children ?? [])]);
}

function find(elements: readonly EcfElement[], path: string): EcfElement | undefined {
  for (const element of elements) {
    if (element.path === path) return element;
    const inside = find(element.children ?? [], path);
    if (inside !== undefined) return inside;
  }
  return undefined;
}

describe('the e-CF model', () => {
  const xsds = readOfficialXsds();
  for (const type of ecfTypes) {
    it(`has the elements of e-CF-${type}.xsd in the same order with the same occurrences`, () => {
      const xsd = xsds.get(`e-CF-${type}.xsd`);
      assert.ok(xsd !== undefined);
      assert.deepEqual(modelElements(ecfModel(type).children), declaredElements(xsd));
    });

    it(`gives every leaf of e-CF ${type} a data type and no element of it obligation 0`, () => {
      const check = (elements: readonly EcfElement[]): void => {
        for (const element of elements) {
          assert.notEqual(element.obligation, 0, element.path);
          if (element.children === undefined) assert.ok(dataTypeOf(element) !== undefined, element.path);
          else check(element.children);
        }
      };
      check(ecfModel(type).children);
    });
  }

  // Formato e-CF V1.0, cross-checked with research/ecf-format.md §1.2 (columns 31 32 33 34 41 43 44 45 46 47).
  const expectedObligations: [string, Obligation[]][] = [
    ['Encabezado/IdDoc/IndicadorNotaCredito', [0, 0, 0, 1, 0, 0, 0, 0, 0, 0]],
    ['Encabezado/IdDoc/TipoIngresos', [1, 1, 1, 1, 0, 0, 1, 1, 1, 0]],
    ['Encabezado/IdDoc/TipoPago', [1, 1, 1, 1, 1, 3, 1, 1, 1, 3]],
    ['Encabezado/IdDoc/TablaFormasPago/FormaDePago/MontoPago', [2, 2, 2, 0, 2, 0, 2, 2, 2, 3]],
    ['Encabezado/Comprador/RNCComprador', [1, 2, 2, 2, 1, 0, 2, 1, 2, 0]],
    ['Encabezado/Comprador/PaisComprador', [0, 0, 0, 0, 0, 0, 0, 0, 3, 0]],
    ['Encabezado/Totales/MontoTotal', [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]],
    ['Encabezado/Totales/TotalISRRetencion', [2, 0, 2, 2, 2, 0, 0, 0, 0, 2]],
    ['DetallesItems/Item/MontoItem', [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]],
    ['DescuentosORecargos/DescuentoORecargo/IndicadorNorma1007', [3, 3, 3, 3, 0, 0, 0, 3, 0, 0]],
    ['Paginacion/Pagina/SubtotalMontoNoFacturablePagina', [2, 2, 2, 2, 0, 0, 2, 2, 2, 0]],
    ['Encabezado/Comprador', [1, 1, 2, 2, 1, 0, 1, 1, 1, 3]],
    ['DescuentosORecargos', [2, 2, 2, 2, 2, 0, 2, 2, 2, 0]],
    ['Subtotales/Subtotal', [3, 3, 3, 3, 3, 3, 3, 3, 3, 3]],
    ['InformacionReferencia', [2, 2, 1, 1, 2, 2, 2, 2, 2, 2]],
    ['InformacionReferencia/CodigoModificacion', [2, 2, 1, 1, 2, 2, 2, 2, 2, 2]],
    ['InformacionReferencia/RazonModificacion', [0, 0, 3, 3, 0, 0, 0, 0, 0, 0]],
  ];
  for (const [path, codes] of expectedObligations) {
    it(`reads the obligations of ${path} from the format document`, () => {
      assert.deepEqual(obligations[path], [codes, 'format']);
      ecfTypes.forEach((type, i) => {
        assert.equal(find(ecfModel(type).children, path)?.obligation ?? 0, codes[i], `e-CF ${type}`);
      });
    });
  }

  it('holds the official catalogues, deduplicated, with labels and Tabla I rates', () => {
    assert.equal(provincias.length, 32);
    assert.deepEqual(provincias[0], { code: '010000', label: 'DISTRITO NACIONAL' });
    assert.ok(isInCatalogue('municipios', '010101'));
    assert.ok(!isInCatalogue('municipios', '010000'));
    assert.deepEqual(
      ['USD', 'EUR', 'COP'].map((code) => monedas.some((m) => m.code === code)),
      [true, true, true],
    );
    assert.equal(unidadesMedida.length, 62);
    assert.equal(codigosImpuestoAdicional.length, 39);
    assert.deepEqual(codigosImpuestoAdicional[0], {
      code: '001',
      label: 'Propina Legal',
      rate: '10',
      rateKind: 'percent',
    });
    assert.deepEqual(codigosImpuestoAdicional.find((c) => c.code === '002')?.rate, '2');
    assert.deepEqual(codigosImpuestoAdicional.find((c) => c.code === '006')?.rateKind, 'amount');
    assert.ok(codigosImpuestoAdicional.every((c) => c.rate !== ''));
  });
});
