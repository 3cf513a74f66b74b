import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  maxCommentsOutsideRoot,
  maxXmlAttributes,
  maxXmlDepth,
  xmlShapeProblem,
  type XmlShapeKind,
} from './xml-shape.js';

const attributes = (count: number) => Array.from({ length: count }, (_, i) => ` a${i}="${i}"`).join('');

describe('the shapes no e-CF has, refused in one pass', () => {
  it('accepts what DGII documents look like: the declaration, namespaces, a signature, comments, CDATA, > in values', () => {
    const xml = `<?xml version="1.0" encoding="utf-8"?>\n<!-- generado -->\n<ECF xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><Encabezado><IdDoc a="x>y"><TipoeCF>31</TipoeCF></IdDoc></Encabezado><!-- nota --><![CDATA[<?not-a-pi?><deep>]]><Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo><Reference URI=""><Transforms><Transform Algorithm="x"/></Transforms></Reference></SignedInfo></Signature></ECF>\n<!-- fin -->`;
    assert.equal(xmlShapeProblem(xml), undefined);
  });

  it('accepts the bounds themselves, and refuses one past each', () => {
    const nested = (depth: number) => `${'<a>'.repeat(depth)}${'</a>'.repeat(depth)}`;
    assert.equal(xmlShapeProblem(nested(maxXmlDepth)), undefined);
    assert.equal(xmlShapeProblem(nested(maxXmlDepth + 1))?.kind, 'nesting');
    assert.equal(xmlShapeProblem(`<a${attributes(maxXmlAttributes)}/>`), undefined);
    assert.equal(xmlShapeProblem(`<a${attributes(maxXmlAttributes + 1)}/>`)?.kind, 'attributes');
    assert.equal(xmlShapeProblem(`<a/>${'<!--c-->'.repeat(maxCommentsOutsideRoot)}`), undefined);
    assert.equal(xmlShapeProblem(`<a/>${'<!--c-->'.repeat(maxCommentsOutsideRoot + 1)}`)?.kind, 'comments');
    // Comments inside the root are linear to parse: any number.
    assert.equal(xmlShapeProblem(`<a>${'<!--c-->'.repeat(10_000)}</a>`), undefined);
  });

  it('refuses every processing instruction but a leading XML declaration', () => {
    for (const xml of [
      '<?xml-stylesheet href="x"?><a/>',
      '<a><?p x?></a>',
      '<a/><?p x?>',
      ' <?xml version="1.0"?><a/>',
      '<?xml version="1.0"?><?xml version="1.0"?><a/>',
    ]) {
      assert.equal(xmlShapeProblem(xml)?.kind, 'processing_instruction', xml);
    }
  });

  // The work stays linear, shown by sizes rather than by timing: each hostile shape is refused at the same index
  // whatever follows it, so a 5 MB input costs the scan no more than a 5 KB one; and an input it admits is only
  // ever walked forward (indexOf and one loop per tag), which the index it stops at would show if it were not.
  const shapes: [XmlShapeKind, (units: number) => string][] = [
    ['processing_instruction', (units) => `<?xml version="1.0"?>${'<?p x?>'.repeat(units)}<ECF/>`],
    ['nesting', (units) => `<ECF>${'<a>'.repeat(units)}${'</a>'.repeat(units)}</ECF>`],
    ['comments', (units) => `<ECF/>${'<!--c-->'.repeat(units)}`],
    ['attributes', (units) => `<ECF${attributes(units)}/>`],
    ['malformed', (units) => `<ECF/>${'<b/>'.repeat(units)}`],
    ['malformed', (units) => `<R>${'<a></x>'.repeat(units)}</R>`],
  ];
  for (const [kind, shape] of shapes) {
    it(`refuses ${kind} (${shape(1).slice(0, 16)}…) at the same place in 5 KB and in 5 MB`, () => {
      const small = xmlShapeProblem(shape(1_000));
      const large = xmlShapeProblem(shape(700_000));
      assert.ok(small !== undefined);
      assert.equal(small.kind, kind);
      assert.deepEqual(large, small);
      assert.ok(small.index < 1_000, `refused at ${String(small.index)}`);
    });
  }

  // What a parser would refuse anyway, refused here because the bounds rely on it: xmldom reports these and goes on,
  // nesting past an end tag that does not match and re-walking the top level for every extra root.
  const malformed: [string, string][] = [
    ['a second root', '<ECF/><b/>'],
    ['thousands of roots', `<ECF/>${'<b/>'.repeat(10_000)}`],
    ['text outside the root', '<ECF/>texto'],
    ['text before the root', 'texto<ECF/>'],
    ['an end tag that closes another element', '<ECF><a></b></ECF>'],
    ['end tags that close nothing, to nest past the bound', `<R>${'<a></x>'.repeat(1_000)}</R>`],
    ['an end tag at the top level, to hide comments from the count', `<ECF></ECF></ECF>${'<!--c-->'.repeat(100)}`],
    ['an element never closed', '<ECF><a>'],
    ['CDATA never closed', `<ECF><![CDATA[${'<a>'.repeat(100)}`],
    ['an XML declaration never closed', `<?xml version="1.0" ${'<a>'.repeat(100)}`],
    ['a comment never closed', '<ECF/><!-- c'],
    ['a tag never closed', '<ECF><a b="1"'],
    ['CDATA outside the root', '<ECF/><![CDATA[x]]>'],
    ['no element at all', '<!-- solo un comentario -->'],
  ];
  for (const [name, xml] of malformed) {
    it(`refuses ${name} as malformed`, () => {
      assert.equal(xmlShapeProblem(xml)?.kind, 'malformed', xml.slice(0, 60));
    });
  }

  it('is not misled by markup inside attribute values, comments or CDATA', () => {
    assert.equal(xmlShapeProblem(`<a b="${'<c>'.repeat(100)}"/>`), undefined);
    assert.equal(xmlShapeProblem(`<a><!--${'<b>'.repeat(100)}--></a>`), undefined);
    assert.equal(xmlShapeProblem(`<a><![CDATA[${'<b>'.repeat(100)}]]></a>`), undefined);
  });
});
