import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Ajv2020 from 'ajv/dist/2020.js';
import { leafReader } from '../build/leaf-value.js';
import { ecfTypes } from './ecf-model-types.js';
import { dataTypes } from './generated/data-types.js';
import { dataTypeSchema, ecfJsonSchema } from './json-schema.js';

// ajv is CommonJS: its class is the default export at run time, `.default` in its declared types (and on the class).
const ajv = new Ajv2020.default({ strict: true, allErrors: false });

/** Values a client might send for a leaf, chosen around every limit the model has. */
function handPicked(): unknown[] {
  const strings = [
    'abc',
    ' ',
    'a\u0001b',
    'ñandú',
    'Ferretería "El Martillo" & Hijos <S.R.L.>',
    '131987654',
    '13198765',
    '40212345678',
    '1319876541',
    '809-555-0101',
    '8095550101',
    'facturas@ejemplo.com.do',
    'no-es-correo',
    'E310000000001',
    'E31000000001',
    'US-EIN-98-7654321',
    '15-11-2026',
    '29-02-2024',
    '29-02-2023',
    '31-04-2026',
    '31-12-2099',
    '01-01-1900',
    '29-02-2000',
    '29-02-1900',
    '00-01-2026',
    '1-1-2026',
    '15-11-2026 10:31:07',
    '15-11-2026 24:00:00',
    '15-11-2026 23:59:60',
    '2026-11-15',
    '0',
    '0.0',
    '0.00',
    '1',
    '1.',
    '.5',
    '1180.00',
    '1180.5',
    '-1',
    '+1',
    '-0',
    '+0',
    '00',
    '0001',
    '1.234',
    '1.2300',
    '1.20000',
    '12345678901234567',
    '1234567890123456.99',
    '1234567890123456789',
    '0000000000000000001',
    '123456789012345678',
    '1234567890123456.9',
    '12.x',
    '1e5',
    '٣',
    ' 1',
    '1 ',
    '1000',
    '1001',
    '10000',
    '10001',
    '0999',
    '01000',
    '99',
    '100',
    '9999',
    '99999',
    '999.9999',
    '1000.0001',
    '9999999999999999999',
    '12345678901234567890',
    '123456789012345678901',
    '-1234567890123456.99',
    '1234567890123456x99',
    '01',
    '02',
    '06',
    '07',
    '43',
    '62',
    '63',
    'USD',
    'usd',
    'DOP',
    '010000',
    '010101',
    '320703',
    '999999',
    '$',
    '%',
    'D',
    'R',
    'X',
    '1.0',
    '1.00',
    '001',
    '039',
    '040',
    'CT',
    'AH',
    'ct',
    'A'.repeat(1000),
    'A'.repeat(1001),
    'a'.repeat(150),
    'a'.repeat(151),
    'Santo Domingo',
    'Juan Pérez',
    '1234567890',
    '12345678901234',
    '123456789012345',
    'x'.repeat(60),
    'x'.repeat(61),
    '\u{1F600}'.repeat(20),
    '\u{1F600}'.repeat(21),
  ];
  const numbers = [
    0,
    1,
    2,
    3,
    -1,
    -0.5,
    0.5,
    1.5,
    1180.57,
    1.234,
    1.2,
    12.345,
    1e15,
    Number('9999999999999999'),
    1e16,
    1e17,
    1e-7,
    1000,
    1001,
    10000,
    10001,
    9999,
    99999,
    123456,
    43,
    62,
    63,
    31,
    32,
    6,
    7,
    10101,
    1.0,
    999.9999,
    1000.0001,
    2 ** 53,
    -(2 ** 53),
    Number('12345678901234567890'),
  ];
  return [...strings, ...numbers, true, false, {}, [], ['1'], { a: 1 }];
}

/** A seeded stream of decimal-looking strings, for what the hand-picked values miss. */
function randomDecimals(count: number): string[] {
  let seed = 0x2f6b_1e3d;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const alphabet = '0000123456789..+-';
  return Array.from({ length: count }, () => {
    const length = 1 + Math.floor(next() * 22);
    let text = '';
    for (let i = 0; i < length; i++) text += alphabet[Math.floor(next() * alphabet.length)] ?? '0';
    return text;
  });
}

describe('ecf JSON schema: data types', () => {
  const samples = [...handPicked(), ...randomDecimals(3000)];

  for (const [name, dataType] of Object.entries(dataTypes)) {
    it(`${name}: accepts exactly what the builder's reader accepts (${dataType.kind})`, () => {
      const validate = ajv.compile(dataTypeSchema(name, dataType));
      const reader = leafReader(dataType);
      const disagreements: string[] = [];
      for (const value of samples) {
        // Binary numbers with more decimals than the field allows are the one rule JSON Schema cannot state exactly
        // (multipleOf on floats is unreliable); the description says it instead.
        const readerResult = reader(value);
        const api = typeof readerResult === 'string';
        const tooManyDecimals =
          typeof readerResult !== 'string' &&
          readerResult.code === 'too_many_fraction_digits' &&
          typeof value === 'number';
        if (tooManyDecimals) continue;
        if (api !== validate(value)) disagreements.push(`${JSON.stringify(value)}: API ${api ? 'accepts' : 'refuses'}`);
      }
      assert.deepEqual(disagreements, []);
    });
  }
});

describe('ecf JSON schema: documents', () => {
  it('compiles for every type', () => {
    for (const type of ecfTypes) assert.equal(typeof ajv.compile(ecfJsonSchema(type)), 'function');
  });

  it('differs between 31 and 32 where the model does: RNCComprador is mandatory in 31 only', () => {
    type Group = { properties: Record<string, Group & { anyOf?: Group[] }>; required?: string[] };
    const comprador = (type: '31' | '32') =>
      (ecfJsonSchema(type) as unknown as Group).properties['Encabezado']?.properties['Comprador'];
    assert.deepEqual(comprador('31')?.required, ['RNCComprador', 'RazonSocialComprador']);
    assert.ok(comprador('32')?.properties['RNCComprador'] !== undefined, '32 has RNCComprador');
    assert.equal((comprador('32')?.required ?? []).includes('RNCComprador'), false);
    const validate = ajv.compile({ ...ecfJsonSchema('32'), $id: 'urn:test:ecf-32' });
    assert.equal(validate({ Encabezado: { IdDoc: { TipoeCF: 32 } } }), false, 'lines and the rest still mandatory');
  });
});
