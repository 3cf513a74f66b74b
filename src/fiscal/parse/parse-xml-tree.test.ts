import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { groupsOf, parseXmlTree, textOf } from './parse-xml-tree.js';

describe('parseXmlTree', () => {
  it('reads elements as occurrences, decodes entities, leaves the root Signature out', () => {
    const result = parseXmlTree('<?xml version="1.0"?><ANECF><Encabezado><RncEmisor>130000006</RncEmisor><Nota>A &amp; B</Nota></Encabezado><L><N>1</N></L><L><N>2</N></L><Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo/></Signature></ANECF>');
    assert.ok(result.ok);
    assert.equal(result.root, 'ANECF');
    const header = groupsOf(result.tree, 'Encabezado')[0];
    assert.ok(header !== undefined);
    assert.equal(textOf(header, 'RncEmisor'), '130000006');
    assert.equal(textOf(header, 'Nota'), 'A & B');
    assert.deepEqual(groupsOf(result.tree, 'L').map((line) => textOf(line, 'N')), ['1', '2']);
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
});
