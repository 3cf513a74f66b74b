import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { guardXml } from './xml-guard.js';

const refusal = (xml: string | Uint8Array, max = 1_000) => {
  const guarded = guardXml(xml, max);
  return guarded.ok ? undefined : guarded.finding;
};

describe('guardXml', () => {
  it('passes an ordinary document through as UTF-8 bytes', () => {
    const guarded = guardXml('<a>ñ<!-- c --><![CDATA[<x>]]></a>', 1_000);
    assert.ok(guarded.ok);
    assert.equal(new TextDecoder().decode(guarded.bytes), '<a>ñ<!-- c --><![CDATA[<x>]]></a>');
  });

  it('passes screened bytes through as they are, past a BOM', () => {
    const bytes = new TextEncoder().encode('<a>ñ</a>');
    const plain = guardXml(bytes, 1_000);
    assert.ok(plain.ok);
    assert.deepEqual([...plain.bytes], [...bytes]);
    const withBom = guardXml(new Uint8Array([0xef, 0xbb, 0xbf, ...bytes]), 1_000);
    assert.ok(withBom.ok);
    assert.deepEqual([...withBom.bytes], [...bytes]);
  });

  for (const doctype of ['<!DOCTYPE a>', '<!doctype a>', '<!DocType a SYSTEM "http://example.com/a.dtd">']) {
    it(`refuses ${doctype} and says on which line`, () => {
      const finding = refusal(`<?xml version="1.0"?>\n${doctype}\n<a/>`);
      assert.equal(finding?.code, 'xml_forbidden');
      assert.equal(finding.line, 2);
      assert.equal(finding.path, '/');
    });
  }

  it('refuses a DOCTYPE given as bytes', () => {
    assert.equal(refusal(new TextEncoder().encode('<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>'))?.code, 'xml_forbidden');
  });

  it('refuses a string or bytes over the bound, counting UTF-8 bytes', () => {
    assert.equal(refusal('<a>'.padEnd(1_001, 'x'))?.code, 'xml_forbidden');
    assert.equal(refusal(new Uint8Array(1_001))?.code, 'xml_forbidden');
    assert.match(refusal(`<a>${'ñ'.repeat(499)}</a>`)?.message ?? '', /at most 1000 are accepted/);
    assert.equal(refusal(`<a>${'n'.repeat(499)}</a>`), undefined);
  });
});
