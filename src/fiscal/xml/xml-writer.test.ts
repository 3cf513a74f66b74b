import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { skipUnlessTools } from '../../../test/support/tools.js';
import { canonicalizeWithXmllint } from '../../../test/support/xmllint.js';
import { escapeAttribute, escapeText, writeCanonicalElement, writeXmlDocument, xmlDeclaration } from './xml-writer.js';
import type { XmlElement } from './xml-writer.js';

const trickyTexts = [
  'Distribuidora Peña & Hijos, S.R.L.',
  'a < b > c',
  'comillas "dobles" y \'simples\'',
  'línea uno\r\nlínea dos\rtres\nfin',
  'tab\there',
  'emoji 🇩🇴 🧾 and astral 𝄞',
  'Ñandú año, acción, pingüino',
  ']]> not a CDATA end',
  '&amp; already looks escaped',
  '  leading and trailing spaces  ',
  '\u00A0non-breaking\u00A0space',
  'ﬀ ligature \uFFFD replacement',
];

function documentWith(text: string, attribute: string): XmlElement {
  return {
    name: 'ECF',
    namespaces: { xsi: 'http://www.w3.org/2001/XMLSchema-instance', xsd: 'http://www.w3.org/2001/XMLSchema' },
    attributes: { Zeta: attribute, Alpha: 'first', 'xsi:noNamespaceSchemaLocation': 'e-CF-31.xsd' },
    content: [
      { name: 'Encabezado', content: [{ name: 'Texto', content: text }] },
      { name: 'Otro', attributes: { b: attribute, a: text }, content: 'x' },
    ],
  };
}

describe('xml writer', () => {
  it('starts with the declaration and writes the root compactly, with start and end tags', () => {
    const xml = writeXmlDocument({
      name: 'ECF',
      content: [
        { name: 'A', content: '1' },
        { name: 'B', content: [{ name: 'C', content: '2' }] },
      ],
    });
    assert.equal(xml, `${xmlDeclaration}<ECF><A>1</A><B><C>2</C></B></ECF>`);
    assert.equal(xmlDeclaration, '<?xml version="1.0" encoding="utf-8"?>');
  });

  it('sorts namespace declarations by prefix (xsd before xsi), before attributes sorted by URI then name', () => {
    const xml = writeCanonicalElement({
      name: 'ACECF',
      namespaces: { xsi: 'http://www.w3.org/2001/XMLSchema-instance', xsd: 'http://www.w3.org/2001/XMLSchema' },
      attributes: { 'xsi:type': 't', b: '2', a: '1' },
      content: 'x',
    });
    assert.equal(
      xml,
      '<ACECF xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" a="1" b="2" xsi:type="t">x</ACECF>',
    );
  });

  it('escapes text and attribute values exactly as C14N does', () => {
    assert.equal(escapeText('a&b<c>d"e\'f\tg\nh\ri'), 'a&amp;b&lt;c&gt;d"e\'f\tg\nh&#xD;i');
    assert.equal(escapeAttribute('a&b<c>d"e\'f\tg\nh\ri'), "a&amp;b&lt;c>d&quot;e'f&#x9;g&#xA;h&#xD;i");
  });

  it('refuses to write an empty element or a character XML cannot carry', () => {
    assert.throws(() => writeCanonicalElement({ name: 'A', content: '' }), /empty/);
    assert.throws(() => writeCanonicalElement({ name: 'A', content: [] }), /empty/);
    assert.throws(() => writeCanonicalElement({ name: 'A', content: 'bell \u0007' }), /XML 1.0/);
    assert.throws(() => writeCanonicalElement({ name: 'A', content: 'lone \uD800 surrogate' }), /XML 1.0/);
    assert.throws(() => writeCanonicalElement({ name: 'A b', content: 'x' }), /XML name/);
  });

  it('omits a namespace declaration an ancestor already rendered', () => {
    const xml = writeCanonicalElement({
      name: 'R',
      namespaces: { '': 'urn:a' },
      content: [{ name: 'C', namespaces: { '': 'urn:a', p: 'urn:p' }, content: 'x' }],
    });
    assert.equal(xml, '<R xmlns="urn:a"><C xmlns:p="urn:p">x</C></R>');
  });

  describe('equals a real canonicalizer (xmllint --c14n)', { skip: skipUnlessTools('xmllint') }, () => {
    for (const text of trickyTexts) {
      it(`for ${JSON.stringify(text)}`, () => {
        const xml = writeXmlDocument(documentWith(text, text));
        const root = xml.slice(xmlDeclaration.length);
        assert.equal(root, canonicalizeWithXmllint(xml));
      });
    }
  });
});
