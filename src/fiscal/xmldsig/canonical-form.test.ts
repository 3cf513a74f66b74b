import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { skipUnlessTools } from '../../../test/support/tools.js';
import { canonicalizeWithXmllint } from '../../../test/support/xmldsig-kit.js';
import { writeCanonicalElement } from '../xml/xml-writer.js';
import { assertCanonicalRoot, checkCanonicalRoot, NonCanonicalDocumentError, toCanonicalDocument } from './index.js';

/** The start tag the one writer produces (the contract the fast path checks). */
function canonicalStartTag(
  name: string,
  namespaces: Record<string, string> = {},
  attributes: Record<string, string> = {},
): string {
  const written = writeCanonicalElement({ name, namespaces, attributes, content: 'x' });
  return written.slice(0, written.length - `x</${name}>`.length);
}

const XSD = 'http://www.w3.org/2001/XMLSchema';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

describe('start tags from the writer meet the canonical contract', () => {
  it('puts xmlns:xsd before xmlns:xsi, whatever order they are given in', () => {
    assert.equal(
      canonicalStartTag('SemillaModel', { xsi: XSI, xsd: XSD }),
      `<SemillaModel xmlns:xsd="${XSD}" xmlns:xsi="${XSI}">`,
    );
  });

  it('puts the default namespace first, then prefixes, then attributes by namespace URI and local name', () => {
    const tag = canonicalStartTag(
      'R',
      { z: 'urn:a', '': 'urn:default', a: 'urn:z' },
      { 'z:b': '1', c: '2', 'a:a': '3', b: '4' },
    );
    assert.equal(tag, '<R xmlns="urn:default" xmlns:a="urn:z" xmlns:z="urn:a" b="4" c="2" z:b="1" a:a="3">');
  });

  it('escapes attribute values as C14N does', () => {
    assert.equal(canonicalStartTag('R', {}, { a: `<&>"'\t\n\r` }), '<R a="&lt;&amp;>&quot;\'&#x9;&#xA;&#xD;">');
  });

  it('refuses an attribute whose prefix is not declared', () => {
    assert.throws(() => canonicalStartTag('R', {}, { 'p:a': '1' }), /prefix not declared/);
  });
});

describe('checkCanonicalRoot', () => {
  const valid = [
    '<ECF><A>1</A></ECF>',
    '<?xml version="1.0" encoding="utf-8"?><ECF><A>1</A></ECF>',
    `<ACECF xmlns:xsd="${XSD}" xmlns:xsi="${XSI}"><A>1</A></ACECF>`,
    '<R xmlns="urn:d" a="x&amp;&lt;&quot;&#x9;>"></R>',
  ];
  for (const document of valid) {
    it(`accepts ${document.slice(0, 60)}`, () => {
      assert.deepEqual(checkCanonicalRoot(document), []);
    });
  }

  const invalid: [string, string, RegExp][] = [
    [
      'xmlns:xsi before xmlns:xsd',
      `<ECF xmlns:xsi="${XSI}" xmlns:xsd="${XSD}"><A>1</A></ECF>`,
      /xmlns:xsd must come before xmlns:xsi/,
    ],
    [
      'an attribute before a namespace declaration',
      '<R a="1" xmlns:p="urn:p"></R>',
      /declarations must come before attributes/,
    ],
    ['unsorted attributes', '<R b="1" a="2"></R>', /a must come before b/],
    ['xml:lang on the root', '<R xml:lang="es"></R>', /xml:lang/],
    ['xmlns="" on the root', '<R xmlns=""></R>', /xmlns=""/],
    ['xmlns:xml on the root', '<R xmlns:xml="http://www.w3.org/XML/1998/namespace"></R>', /xmlns:xml/],
    ['a raw tab in an attribute value', '<R a="1\t2"></R>', /not escaped/],
    ['single quotes', "<R a='1'></R>", /name="value"/],
    ['another XML declaration', '<?xml version="1.0"?><R></R>', /declaration must be exactly/],
    ['a BOM', '\uFEFF<R></R>', /start with the root/],
    ['indentation before the root', '\n<R></R>', /start with the root/],
    ['a newline after the root', '<R></R>\n', /must end with <\/R>/],
    ['a self-closing root', '<R/>', /name="value"/],
    ['an undeclared attribute prefix', '<R p:a="1"></R>', /prefix of p:a is not declared/],
  ];
  for (const [what, document, problem] of invalid) {
    it(`refuses ${what}`, () => {
      const problems = checkCanonicalRoot(document);
      assert.ok(
        problems.some((found) => problem.test(found)),
        `expected ${String(problem)} in ${JSON.stringify(problems)}`,
      );
      assert.throws(() => assertCanonicalRoot(document), NonCanonicalDocumentError);
    });
  }
});

describe(
  'the escaping helpers and toCanonicalDocument agree with libxml2 C14N',
  { skip: skipUnlessTools('xmllint') },
  () => {
    const texts = ['a & b', '<tag>', 'x > y', 'line\r\nbreak', 'tab\there', `quotes " and '`, 'ñáéíóú — €', ']]>'];
    it("the writer's escaping of text and attributes is what xmllint --c14n writes", () => {
      for (const text of texts) {
        const document = writeCanonicalElement({ name: 'R', attributes: { a: text }, content: text });
        assert.equal(canonicalizeWithXmllint(document), document, text);
      }
    });

    const documents = [
      `<?xml version="1.0" encoding="utf-8"?><R xmlns:xsi="${XSI}" xmlns:xsd="${XSD}" b='2' a="1"><E/><F>&#65;&amp;<![CDATA[<x>]]></F><!-- c --><G a="&#10;&gt;"/></R>`,
      '<R xmlns="urn:d"><p:E xmlns:p="urn:p" xmlns="urn:d"><Q xmlns="">t&#13;</Q></p:E></R>',
      '<R><E attr="x" xmlns:unused="urn:u">ñ</E></R>',
    ];
    for (const document of documents) {
      it(`canonicalizes like xmllint: ${document.slice(0, 50)}`, () => {
        // xmllint --c14n keeps comments; DGII's C14N (REC-xml-c14n-20010315) drops them.
        const expected = canonicalizeWithXmllint(document).replace(/<!--[^]*?-->/g, '');
        const canonical = toCanonicalDocument(document);
        assert.equal(canonical.replace(/^<\?xml[^>]*>/, ''), expected);
        assert.equal(toCanonicalDocument(canonical), canonical, 'canonical form is a fixed point');
      });
    }
  },
);
