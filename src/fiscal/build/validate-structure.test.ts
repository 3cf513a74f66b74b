import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ecfDocuments } from '../../../test/support/ecf-documents.js';
import { ecfTypes } from '../model/ecf-model-types.js';
import type { EcfType } from '../model/ecf-model-types.js';
import { validateStructure } from './validate-structure.js';

type Json = Record<string, unknown>;

/** A copy of the type's realistic document with `value` put at `path` (undefined deletes the key). */
function documentWith(type: EcfType, path: readonly (string | number)[], value: unknown): Json {
  const copy = structuredClone(ecfDocuments[type]);
  let node = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) {
    node[key] ??= {};
    node = node[key] as Record<string | number, unknown>;
  }
  const last = path.at(-1) ?? '';
  if (value === undefined) Reflect.deleteProperty(node, last);
  else node[last] = value;
  return copy;
}

interface Case {
  name: string;
  type: EcfType;
  path: readonly (string | number)[];
  value: unknown;
  expected: readonly (readonly [string, string])[];
}

const cases: Case[] = [
  {
    name: 'an unknown key',
    type: '31',
    path: ['Encabezado', 'Emisor', 'Foo'],
    value: 'x',
    expected: [['/Encabezado/Emisor/Foo', 'unknown_element']],
  },
  {
    name: 'an unknown key inside an item',
    type: '31',
    path: ['DetallesItems', 'Item', 1, 'Precio'],
    value: '1',
    expected: [['/DetallesItems/Item/1/Precio', 'unknown_element']],
  },
  {
    name: 'a key with ~ and / in it, escaped in the pointer',
    type: '31',
    path: ['Encabezado', 'a/b~c'],
    value: 'x',
    expected: [['/Encabezado/a~1b~0c', 'unknown_element']],
  },
  {
    name: 'a text too long (RazonSocialEmisor ≤ 150)',
    type: '31',
    path: ['Encabezado', 'Emisor', 'RazonSocialEmisor'],
    value: 'ñ'.repeat(151),
    expected: [['/Encabezado/Emisor/RazonSocialEmisor', 'too_long']],
  },
  {
    name: 'a text of 150 characters with accents is not too long',
    type: '31',
    path: ['Encabezado', 'Emisor', 'RazonSocialEmisor'],
    value: 'ñ'.repeat(150),
    expected: [],
  },
  {
    name: 'a phone against its pattern',
    type: '31',
    path: ['Encabezado', 'Emisor', 'TablaTelefonoEmisor', 'TelefonoEmisor', 1],
    value: '8095550102',
    expected: [['/Encabezado/Emisor/TablaTelefonoEmisor/TelefonoEmisor/1', 'pattern_mismatch']],
  },
  {
    name: 'an RNC of 10 digits',
    type: '31',
    path: ['Encabezado', 'Comprador', 'RNCComprador'],
    value: '1301234567',
    expected: [['/Encabezado/Comprador/RNCComprador', 'pattern_mismatch']],
  },
  {
    name: 'a negative amount where only ≥ 0 is allowed',
    type: '31',
    path: ['DetallesItems', 'Item', 0, 'MontoItem'],
    value: '-5.00',
    expected: [['/DetallesItems/Item/0/MontoItem', 'pattern_mismatch']],
  },
  {
    name: 'a unit outside Tabla IV',
    type: '31',
    path: ['DetallesItems', 'Item', 0, 'UnidadMedida'],
    value: 999,
    expected: [['/DetallesItems/Item/0/UnidadMedida', 'not_in_catalogue']],
  },
  {
    name: 'TipoIngresos 1 instead of "01"',
    type: '31',
    path: ['Encabezado', 'IdDoc', 'TipoIngresos'],
    value: 1,
    expected: [['/Encabezado/IdDoc/TipoIngresos', 'not_in_catalogue']],
  },
  {
    name: 'a municipality code as Provincia',
    type: '31',
    path: ['Encabezado', 'Emisor', 'Provincia'],
    value: '010101',
    expected: [['/Encabezado/Emisor/Provincia', 'not_in_catalogue']],
  },
  {
    name: 'a currency outside Tabla II',
    type: '46',
    path: ['Encabezado', 'OtraMoneda', 'TipoMoneda'],
    value: 'XXX',
    expected: [['/Encabezado/OtraMoneda/TipoMoneda', 'not_in_catalogue']],
  },
  {
    name: 'RNCComprador missing in 31 (obligation 1)',
    type: '31',
    path: ['Encabezado', 'Comprador', 'RNCComprador'],
    value: undefined,
    expected: [['/Encabezado/Comprador/RNCComprador', 'missing']],
  },
  {
    name: 'RNCComprador empty in 31 counts as missing',
    type: '31',
    path: ['Encabezado', 'Comprador', 'RNCComprador'],
    value: '',
    expected: [['/Encabezado/Comprador/RNCComprador', 'missing']],
  },
  {
    name: 'IndicadorNotaCredito missing in 34',
    type: '34',
    path: ['Encabezado', 'IdDoc', 'IndicadorNotaCredito'],
    value: undefined,
    expected: [['/Encabezado/IdDoc/IndicadorNotaCredito', 'missing']],
  },
  {
    name: 'InformacionReferencia missing in 33',
    type: '33',
    path: ['InformacionReferencia'],
    value: undefined,
    expected: [['/InformacionReferencia', 'missing']],
  },
  {
    name: 'TipoPago missing in 41 (Formato e-CF 1, XSD optional)',
    type: '41',
    path: ['Encabezado', 'IdDoc', 'TipoPago'],
    value: undefined,
    expected: [['/Encabezado/IdDoc/TipoPago', 'missing']],
  },
  {
    name: 'Comprador in 43 (not applicable)',
    type: '43',
    path: ['Encabezado', 'Comprador'],
    value: { RazonSocialComprador: 'X' },
    expected: [['/Encabezado/Comprador', 'not_applicable']],
  },
  {
    name: 'TablaFormasPago in 34 (not applicable)',
    type: '34',
    path: ['Encabezado', 'IdDoc', 'TablaFormasPago'],
    value: { FormaDePago: [{ FormaPago: 1, MontoPago: '1.00' }] },
    expected: [['/Encabezado/IdDoc/TablaFormasPago', 'not_applicable']],
  },
  {
    name: 'nothing for an empty element of another type (not sent)',
    type: '43',
    path: ['Encabezado', 'Comprador'],
    value: { RazonSocialComprador: '' },
    expected: [],
  },
  {
    name: 'an empty unknown key (most likely misspelt)',
    type: '31',
    path: ['Encabezado', 'Emisor', 'RazonSocial'],
    value: '',
    expected: [['/Encabezado/Emisor/RazonSocial', 'unknown_element']],
  },
  {
    name: 'a key named like an Object.prototype member',
    type: '31',
    path: ['constructor'],
    value: 'x',
    expected: [['/constructor', 'unknown_element']],
  },
  {
    name: 'PaisComprador outside 46 (not applicable)',
    type: '31',
    path: ['Encabezado', 'Comprador', 'PaisComprador'],
    value: 'Haití',
    expected: [['/Encabezado/Comprador/PaisComprador', 'not_applicable']],
  },
  {
    name: 'the service-owned eNCF sent by the client',
    type: '31',
    path: ['Encabezado', 'IdDoc', 'eNCF'],
    value: 'E310000000001',
    expected: [['/Encabezado/IdDoc/eNCF', 'service_owned']],
  },
  {
    name: 'the service-owned FechaHoraFirma sent by the client',
    type: '32',
    path: ['FechaHoraFirma'],
    value: '15-11-2026 10:00:00',
    expected: [['/FechaHoraFirma', 'service_owned']],
  },
  {
    name: 'a number with more decimals than the field allows',
    type: '31',
    path: ['Encabezado', 'Totales', 'MontoTotal'],
    value: 1430.001,
    expected: [['/Encabezado/Totales/MontoTotal', 'too_many_fraction_digits']],
  },
  {
    name: 'a non-finite number',
    type: '31',
    path: ['Encabezado', 'Totales', 'MontoTotal'],
    value: Number.POSITIVE_INFINITY,
    expected: [['/Encabezado/Totales/MontoTotal', 'not_finite']],
  },
  {
    name: 'an amount that is not a decimal',
    type: '31',
    path: ['Encabezado', 'Totales', 'MontoTotal'],
    value: '1,430.00',
    expected: [['/Encabezado/Totales/MontoTotal', 'not_a_decimal']],
  },
  {
    name: 'a quantity of zero where > 0 is required',
    type: '31',
    path: ['DetallesItems', 'Item', 0, 'CantidadItem'],
    value: '0',
    expected: [['/DetallesItems/Item/0/CantidadItem', 'out_of_range']],
  },
  {
    name: 'a date that does not exist',
    type: '31',
    path: ['Encabezado', 'Emisor', 'FechaEmision'],
    value: '31-02-2026',
    expected: [['/Encabezado/Emisor/FechaEmision', 'invalid_date']],
  },
  {
    name: 'an ISO date',
    type: '31',
    path: ['Encabezado', 'Emisor', 'FechaEmision'],
    value: '2026-11-15',
    expected: [['/Encabezado/Emisor/FechaEmision', 'invalid_date']],
  },
  {
    name: 'a text given as a number',
    type: '31',
    path: ['DetallesItems', 'Item', 0, 'NombreItem'],
    value: 123,
    expected: [['/DetallesItems/Item/0/NombreItem', 'wrong_type']],
  },
  {
    name: 'a repeated element given as an object',
    type: '31',
    path: ['DetallesItems', 'Item'],
    value: { NumeroLinea: 1 },
    expected: [['/DetallesItems/Item', 'wrong_type']],
  },
  {
    name: 'a single element given as an array',
    type: '31',
    path: ['Encabezado', 'Comprador'],
    value: [{ RazonSocialComprador: 'X' }],
    expected: [['/Encabezado/Comprador', 'wrong_type']],
  },
  {
    name: 'more phones than the XSD allows (3)',
    type: '31',
    path: ['Encabezado', 'Emisor', 'TablaTelefonoEmisor', 'TelefonoEmisor'],
    value: ['809-555-0101', '809-555-0102', '809-555-0103', '809-555-0104'],
    expected: [['/Encabezado/Emisor/TablaTelefonoEmisor/TelefonoEmisor', 'too_many']],
  },
  {
    name: 'a character XML cannot carry',
    type: '31',
    path: ['DetallesItems', 'Item', 0, 'NombreItem'],
    value: 'bell\u0007',
    expected: [['/DetallesItems/Item/0/NombreItem', 'invalid_character']],
  },
];

describe('validateStructure', () => {
  for (const type of ecfTypes) {
    it(`finds nothing wrong with the realistic e-CF ${type}`, () => {
      assert.deepEqual(validateStructure(type, ecfDocuments[type]), []);
    });
  }

  for (const { name, type, path, value, expected } of cases) {
    it(`reports ${name}`, () => {
      const findings = validateStructure(type, documentWith(type, path, value));
      assert.deepEqual(
        findings.map((f) => [f.pointer, f.code]),
        expected,
      );
      assert.ok(findings.every((f) => f.severity === 'error' && f.message !== ''));
    });
  }

  it('reports a document whose TipoeCF is not the type asked for', () => {
    const findings = validateStructure('45', ecfDocuments['31']);
    assert.deepEqual(
      findings.map((f) => [f.pointer, f.code]),
      [['/Encabezado/IdDoc/TipoeCF', 'type_mismatch']],
    );
  });

  it('reports a body that is not an object', () => {
    assert.deepEqual(
      validateStructure('31', []).map((f) => f.code),
      ['wrong_type'],
    );
  });
});
