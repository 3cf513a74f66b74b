import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { repairSchema } from './repair-schema.js';

const schema = (body: string) =>
  `<?xml version="1.0"?>\n<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">\n${body}\n</xs:schema>`;
const pattern = (value: string) =>
  schema(
    `<xs:simpleType name="T"><xs:restriction base="xs:string"><xs:pattern value="${value}"/></xs:restriction></xs:simpleType>`,
  );
const repairedPattern = (value: string) =>
  /<xs:pattern value="([^"]*)"/.exec(repairSchema('t.xsd', pattern(value)).text)?.[1];

describe('repairSchema', () => {
  it('leaves a clean schema byte for byte and reports nothing', () => {
    const text = pattern('[0-9]{9}|[0-9]{11}');
    assert.deepEqual(repairSchema('t.xsd', text), { text, repairs: [] });
  });

  it('trims a declared name and reports the file and line', () => {
    const result = repairSchema('e-CF-31.xsd', schema('<xs:simpleType name=" IndicadorType">\n</xs:simpleType>'));
    assert.match(result.text, /<xs:simpleType name="IndicadorType">/);
    assert.deepEqual(result.repairs, ['e-CF-31.xsd:3: trimmed the name " IndicadorType" to "IndicadorType"']);
  });

  it('trims type, base and ref references, whatever the prefix', () => {
    const result = repairSchema(
      't.xsd',
      schema('<xsd:element name="A" type="T "/><xs:restriction base=" xs:string"/><xs:element ref=" B"/>'),
    );
    assert.match(result.text, /type="T"/);
    assert.match(result.text, /base="xs:string"/);
    assert.match(result.text, /ref="B"/);
    assert.equal(result.repairs.length, 3);
  });

  it('does not touch spaces in documentation text or in enumeration values', () => {
    const text = schema(
      '<xs:annotation><xs:documentation>name=" x"</xs:documentation></xs:annotation><xs:enumeration value=" 01 "/>',
    );
    assert.deepEqual(repairSchema('t.xsd', text).repairs, []);
  });

  const patterns: [string, string, string][] = [
    ['replaces a non-capturing group', '[0-9]{1,16}(?:.[0-9]{2})?', '[0-9]{1,16}(.[0-9]{2})?'],
    ['replaces every non-capturing group', '(?:a)|(?:b)', '(a)|(b)'],
    ['keeps an escaped parenthesis followed by an optional colon', '\\(?:', '\\(?:'],
    ['keeps "(?:" inside a character class', '[(?:]+', '[(?:]+'],
    ['drops both anchors', '^[a-z,\\s]*$', '[a-z,\\s]*'],
    ['keeps a lone leading caret, which XSD reads as a literal', '^[a-z]*', '^[a-z]*'],
    ['keeps a lone trailing dollar, which XSD reads as a literal', '[0-9]+$', '[0-9]+$'],
    ['keeps an escaped trailing dollar', '^[0-9]+\\$', '^[0-9]+\\$'],
    ['keeps a negated class', '[^0-9]+', '[^0-9]+'],
    ['drops anchors when the dollar follows an escaped backslash', '^a\\\\$', 'a\\\\'],
    ['does both repairs in one pattern', '^(?:a|b)$', '(a|b)'],
  ];
  for (const [name, value, expected] of patterns) {
    it(`${name}: ${value}`, () => {
      assert.equal(repairedPattern(value), expected);
    });
  }

  it('reports a pattern repair with the original pattern', () => {
    assert.deepEqual(repairSchema('ACECF.xsd', pattern('((?:20|20)\\d{2})')).repairs, [
      'ACECF.xsd:3: replaced 1 "(?:" with "(" in the pattern "((?:20|20)\\d{2})"',
    ]);
  });

  it('reads single-quoted values and tags spread over lines', () => {
    const result = repairSchema('t.xsd', schema("<xs:pattern\n  value='(?:x)'\n/>"));
    assert.match(result.text, /value='\(x\)'/);
    assert.equal(result.repairs.length, 1);
  });
});
