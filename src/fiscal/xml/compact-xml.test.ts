import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { XMLParser } from 'fast-xml-parser';
import { scanCompactXml } from './compact-xml.js';

// The shape parse-ecf.ts reads, from the parser it replaces for compact documents (its options).
const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  processEntities: false,
  trimValues: false,
  cdataPropName: '#cdata',
  commentPropName: '#comment',
});
const fastXmlParserRoot = (xml: string, root: string): unknown => (parser.parse(xml) as Record<string, unknown>)[root];
/** Plain objects, so deepEqual compares values and not prototypes. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe('scanCompactXml', () => {
  const compact = [
    '<?xml version="1.0" encoding="utf-8"?><ECF><A>1</A><B><C>x &amp; y &lt; z &gt; w&#xD;</C><C>2</C><D></D></B><E>   </E></ECF>',
    '<ECF xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n  <A>ñ — 😀</A>\n  <B>\n    <C>1</C>\n  </B>\n</ECF>\n',
    '<R><M>before<X>1</X>between<X>2</X>after</M><toString>1</toString></R>',
  ];
  for (const xml of compact) {
    it(`reads ${JSON.stringify(xml.slice(0, 40))}… as fast-xml-parser would`, () => {
      const scanned = scanCompactXml(xml);
      assert.ok(scanned !== undefined);
      const root = scanned.rootName;
      const expected = plain(fastXmlParserRoot(xml, root)) as Record<string, unknown>;
      // fast-xml-parser renames an element called toString (a guard of its own); the scan keeps the name.
      if ('__toString' in expected) {
        expected['toString'] = expected['__toString'];
        delete expected['__toString'];
      }
      assert.deepEqual(plain(scanned.content), expected);
      assert.equal(xml.slice(scanned.rootStart, scanned.rootStart + root.length + 1), `<${root}`);
      assert.equal(xml.slice(scanned.rootEnd - root.length - 3, scanned.rootEnd), `</${root}>`);
    });
  }

  it("finds the root's last child Signature, its inside left as it is", () => {
    const signature =
      '<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo a="1"><X/></SignedInfo></Signature>';
    const xml = `<ECF><A>1</A>${signature}\n</ECF>`;
    const scanned = scanCompactXml(xml);
    assert.ok(scanned?.signature !== undefined);
    assert.equal(xml.slice(scanned.signature.start, scanned.signature.end), signature);
    assert.deepEqual(Object.keys(scanned.content), ['A', 'Signature', '#text']);
  });

  it('keeps an element named __proto__ as a plain key', () => {
    const scanned = scanCompactXml('<ECF><__proto__><A>1</A></__proto__></ECF>');
    assert.ok(scanned !== undefined);
    assert.deepEqual(Object.keys(scanned.content), ['__proto__']);
    assert.equal(Object.getPrototypeOf(scanned.content), null);
  });

  const notCompact: [what: string, xml: string][] = [
    ['a comment', '<R><!-- c --><A>1</A></R>'],
    ['an attribute below the root', '<R><A b="1">1</A></R>'],
    ['an attribute on the root', '<R b="1"><A>1</A></R>'],
    ['a default namespace on the root', '<R xmlns="urn:x"><A>1</A></R>'],
    ['root declarations out of order', '<R xmlns:b="urn:b" xmlns:a="urn:a"><A>1</A></R>'],
    ['a prefixed element', '<R xmlns:p="urn:p"><p:A>1</p:A></R>'],
    ['an empty-element tag', '<R><A/></R>'],
    ['a space in a tag', '<R><A >1</A></R>'],
    ['&quot;', '<R><A>&quot;</A></R>'],
    ['a decimal character reference', '<R><A>&#65;</A></R>'],
    ['another entity', '<R><A>&nbsp;</A></R>'],
    ['a literal >', '<R><A>></A></R>'],
    ['a CR', '<R><A>a\rb</A></R>'],
    ['a control character', '<R><A>a\u0001b</A></R>'],
    ['a lone surrogate', '<R><A>a\ud800b</A></R>'],
    ['CDATA', '<R><A><![CDATA[x]]></A></R>'],
    ['a processing instruction', '<R><?pi x?><A>1</A></R>'],
    ['a processing instruction after the root', '<R><A>1</A></R><?pi x?>'],
    ['mismatched tags', '<R><A>1</B></R>'],
    ['an unclosed element', '<R><A>1</A>'],
    ['text after the root', '<R><A>1</A></R>x'],
    ['two roots', '<R><A>1</A></R><R><A>1</A></R>'],
    ['a root of text alone', '<R>1</R>'],
    ['another encoding declared', '<?xml version="1.0" encoding="ISO-8859-1"?><R><A>1</A></R>'],
    ['an element after the Signature', '<R><Signature xmlns="urn:s"></Signature><A>1</A></R>'],
    ['text after the Signature', '<R><Signature xmlns="urn:s"></Signature>x</R>'],
    ['an unclosed Signature', '<R><Signature xmlns="urn:s"><A>1</A></R>'],
  ];
  for (const [what, xml] of notCompact) {
    it(`leaves ${what} to the general parsers`, () => {
      assert.equal(scanCompactXml(xml), undefined);
    });
  }
});
