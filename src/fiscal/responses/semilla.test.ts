// SemillaModel: DGII's sample seed reads back; a seed we build, signed with the general signer, is valid against
// Semilla.xsd (our schema set and the real xmllint) and verifies in xmlsec1.
import assert from 'node:assert/strict';
import { assertDeliverable } from '../../../test/support/deliverable.js';
import { after, before, describe, it } from 'node:test';
import { readDgiiSample, readOfficialXsds } from '../../../test/support/dgii-files.js';
import { toCanonicalDocument } from '../xmldsig/index.js';
import { compileSchemaSet, type SchemaSet } from '../xsd/index.js';
import { buildSemilla, isXsdDateTime, parseSemilla } from './semilla.js';

let schemas: SchemaSet;
before(() => {
  schemas = compileSchemaSet(readOfficialXsds());
});
after(() => {
  schemas.dispose();
});

const seed = {
  valor:
    't9vzdixnqM5b59ZZOQ9aWT1n7GuW8X6EAlJmPEumz82//y1A2yZNzkT0NiTjY2QoqNIV/D57SPnBsYtg2UZXiQ+QUi/wdWaFADXoL37B52fHNioQSPhgnG2ZGqmBr0q1xR6QM5oW+5RmZ0ddhWNclkSiqsyT25OizwC8b5hM368=',
  fecha: '2026-11-21T10:50:14.9682218-04:00',
};

function codes(result: ReturnType<typeof parseSemilla> | ReturnType<typeof buildSemilla>): string[] {
  return result.ok ? [] : result.findings.map((finding) => finding.code);
}

describe('SemillaModel', () => {
  it("reads DGII's signed sample seed (BOM, indented, with its Signature)", () => {
    assert.deepEqual(parseSemilla(readDgiiSample('seed-test_140133.xml')), {
      ok: true,
      value: {
        valor:
          't9vzdixnqM5b59ZZOQ9aWT1n7GuW8X6EAlJmPEumz82//y1A2yZNzkT0NiTjY2QoqNIV/D57SPnBsYtg2UZXiQ+QUi/wdWaFADXoL37B52fHNioQSPhgnG2ZGqmBr0q1xR6QM5oW+5RmZ0ddhWNclkSiqsyT25OizwC8b5hM368=',
        fecha: '2025-01-25T13:33:57.395-04:00',
      },
    });
    // The same bytes as DGII serves them.
    assert.equal(parseSemilla(Buffer.from(readDgiiSample('seed-test_140133.xml'), 'utf8')).ok, true);
  });

  it('writes a seed with the xsi/xsd declarations, canonical, that signed with signXml is valid and verifies', (t) => {
    const built = buildSemilla(seed);
    assert.ok(built.ok);
    assert.equal(
      built.xml,
      '<?xml version="1.0" encoding="utf-8"?><SemillaModel xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
        `<valor>${seed.valor}</valor><fecha>${seed.fecha}</fecha></SemillaModel>`,
    );
    assert.equal(toCanonicalDocument(built.xml), built.xml);
    // Unsigned, the XSD refuses it: its wildcard slot (the Signature) is required.
    assert.notDeepEqual(schemas.validate('Semilla', built.xml), []);

    const signed = assertDeliverable(t, 'Semilla', built.xml, 'general');
    // And what the signer sends back reads as the seed that was issued.
    assert.deepEqual(parseSemilla(signed), { ok: true, value: seed });
  });

  it('escapes valor once and reads it back', () => {
    const built = buildSemilla({ valor: 'a<b&c>', fecha: '2026-11-21T10:50:14Z' });
    assert.ok(built.ok);
    assert.match(built.xml, /<valor>a&lt;b&amp;c&gt;<\/valor>/);
    assert.deepEqual(parseSemilla(built.xml), { ok: true, value: { valor: 'a<b&c>', fecha: '2026-11-21T10:50:14Z' } });
  });

  for (const [name, value, code] of [
    ['an empty valor', { ...seed, valor: ' ' }, 'missing'],
    ['a date that is not xs:dateTime', { ...seed, fecha: '21-11-2026 10:50:14' }, 'date_format'],
    ['month 13', { ...seed, fecha: '2026-13-21T10:50:14-04:00' }, 'date_format'],
  ] as const) {
    it(`refuses to build a seed with ${name}`, () => {
      assert.deepEqual(codes(buildSemilla(value)), [code]);
    });
  }

  for (const [name, xml, expected] of [
    [
      'a DOCTYPE',
      '<!DOCTYPE SemillaModel [<!ENTITY x "y">]><SemillaModel><valor>&x;</valor><fecha>2026-11-21T10:50:14Z</fecha></SemillaModel>',
      ['doctype_not_allowed'],
    ],
    [
      'XML that is not well-formed',
      '<SemillaModel><valor>x</valor><fecha>2026-11-21T10:50:14Z</fecha>',
      ['malformed_xml'],
    ],
    ['another root', '<RFCE><valor>x</valor><fecha>2026-11-21T10:50:14Z</fecha></RFCE>', ['not_a_seed']],
    ['no fecha', '<SemillaModel><valor>x</valor></SemillaModel>', ['missing']],
    [
      'two valor',
      '<SemillaModel><valor>x</valor><valor>y</valor><fecha>2026-11-21T10:50:14Z</fecha></SemillaModel>',
      ['missing'],
    ],
    [
      'a valor with markup inside',
      '<SemillaModel><valor><b>x</b></valor><fecha>2026-11-21T10:50:14Z</fecha></SemillaModel>',
      ['missing'],
    ],
    ['a bad date', '<SemillaModel><valor>x</valor><fecha>2026-11-21</fecha></SemillaModel>', ['date_format']],
    [
      'an element named like a JavaScript property',
      '<SemillaModel><valor>x</valor><fecha>2026-11-21T10:50:14Z</fecha><prototype>1</prototype></SemillaModel>',
      ['malformed_xml'],
    ],
    [
      'an element the seed does not have',
      '<SemillaModel><valor>x</valor><fecha>2026-11-21T10:50:14Z</fecha><Otro>1</Otro></SemillaModel>',
      ['unexpected_element'],
    ],
  ] as const) {
    it(`refuses a seed with ${name}`, () => {
      assert.deepEqual(codes(parseSemilla(xml)), expected);
    });
  }

  it('knows xs:dateTime', () => {
    for (const good of ['2022-12-06T10:50:14.9682218-04:00', '2026-11-21T10:50:14Z', '2026-11-21T10:50:14'])
      assert.equal(isXsdDateTime(good), true, good);
    for (const bad of [
      '2026-11-21',
      '2026-11-21T25:00:00',
      '2026-00-21T10:00:00',
      '2026-11-21T10:50:14+15:00',
      '2026-11-21 10:50:14',
    ])
      assert.equal(isXsdDateTime(bad), false, bad);
  });
});
