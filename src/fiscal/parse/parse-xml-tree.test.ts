import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { groupsOf, parseXmlTree, textOf } from './parse-xml-tree.js';

describe('parseXmlTree', () => {
  it('reads elements as occurrences, decodes entities, leaves the root Signature out', () => {
    const result = parseXmlTree(
      '<?xml version="1.0"?><ANECF><Encabezado><RncEmisor>130000006</RncEmisor><Nota>A &amp; B</Nota></Encabezado><L><N>1</N></L><L><N>2</N></L><Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo/></Signature></ANECF>',
    );
    assert.ok(result.ok);
    assert.equal(result.root, 'ANECF');
    const header = groupsOf(result.tree, 'Encabezado')[0];
    assert.ok(header !== undefined);
    assert.equal(textOf(header, 'RncEmisor'), '130000006');
    assert.equal(textOf(header, 'Nota'), 'A & B');
    assert.deepEqual(
      groupsOf(result.tree, 'L').map((line) => textOf(line, 'N')),
      ['1', '2'],
    );
    assert.equal(result.tree['Signature'], undefined);
  });

  it('refuses a DOCTYPE, malformed XML, text between elements and unknown entities', () => {
    const codes = (xml: string) => {
      const result = parseXmlTree(xml);
      return result.ok ? [] : result.findings.map((finding) => finding.code);
    };
    assert.deepEqual(codes('<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>'), ['doctype_not_allowed']);
    assert.deepEqual(codes('<a><b></a>'), ['malformed_xml']);
    assert.deepEqual(codes('<a>texto<b>1</b></a>'), ['unexpected_text']);
    assert.deepEqual(codes('<a><b>&nbsp;</b></a>'), ['unknown_entity']);
  });

  it('reads the compact form (one pass) exactly as the general parser reads the same document laid out', () => {
    const compact =
      '<?xml version="1.0" encoding="utf-8"?><ARECF xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><DetalleAcusedeRecibo><Version>1.0</Version><RNCEmisor>130000006</RNCEmisor><Nota>A &amp; B &lt; C&#xD;</Nota><Vacio></Vacio><L><N>1</N></L><L><N>2</N></L></DetalleAcusedeRecibo><Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo/></Signature></ARECF>';
    // A comment takes the document out of the compact form: fast-xml-parser reads it.
    const general = compact.replace('<DetalleAcusedeRecibo>', '<DetalleAcusedeRecibo><!-- general -->');
    const expected = {
      DetalleAcusedeRecibo: [
        {
          Version: ['1.0'],
          RNCEmisor: ['130000006'],
          Nota: ['A & B < C\r'],
          Vacio: [''],
          L: [{ N: ['1'] }, { N: ['2'] }],
        },
      ],
    };
    for (const xml of [compact, general]) {
      const result = parseXmlTree(xml);
      assert.ok(result.ok, xml);
      assert.equal(result.root, 'ARECF');
      assert.deepEqual(JSON.parse(JSON.stringify(result.tree)), expected);
    }
  });

  it('keeps a compact __proto__ element a plain key, and refuses one fast-xml-parser would throw on', () => {
    const compact = parseXmlTree('<a><__proto__><b>1</b></__proto__></a>');
    assert.ok(compact.ok);
    assert.equal(Object.getPrototypeOf(compact.tree), null);
    assert.equal(textOf(groupsOf(compact.tree, '__proto__')[0] ?? {}, 'b'), '1');
    const general = parseXmlTree('<a><!-- general --><constructor>1</constructor></a>');
    assert.ok(!general.ok);
    assert.deepEqual(
      general.findings.map((finding) => finding.code),
      ['malformed_xml'],
    );
    assert.match(general.findings[0]?.message ?? '', /reserved/);
  });

  it('finds text between elements in the compact form too', () => {
    const result = parseXmlTree('<a><b>1</b>suelto<c>2</c></a>');
    assert.ok(!result.ok);
    assert.deepEqual(
      result.findings.map((finding) => [finding.pointer, finding.code]),
      [['/a', 'unexpected_text']],
    );
  });
});
