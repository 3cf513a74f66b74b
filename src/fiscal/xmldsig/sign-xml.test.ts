import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  readSample,
  testSigningKey,
  verifyWithXmlCrypto,
  verifyWithXmlsec1,
} from '../../../test/support/xmldsig-kit.js';
import { requireTool } from '../../../test/support/tools.js';
import {
  signCanonicalDocument,
  signXml,
  toCanonicalDocument,
  verifyEnvelopedSignature,
  XmlInputError,
} from './index.js';
import type { XmlInputErrorCode } from './index.js';

// DGII serves the seed with a BOM, CRLF line ends and indentation (research/dgii-protocol.md §3); the public signed
// seed sample is exactly that, so removing its Signature gives back a seed as served.
function servedSeed(): string {
  return readSample('seed-test_140133.xml')
    .toString('utf8')
    .replace(/\s*<Signature[\s\S]*<\/Signature>/, '');
}

describe('signXml on a DGII seed (SemillaModel)', () => {
  const key = testSigningKey();
  const seed = servedSeed();
  const signed = signXml(seed, key);

  it('starts from a seed with a BOM, CRLF and indentation', () => {
    assert.ok(seed.startsWith('\uFEFF<?xml'));
    assert.match(seed, /\r\n {2}<valor>/);
  });

  it('drops the BOM and the whitespace-only text, and keeps valor and fecha exactly', () => {
    assert.ok(signed.startsWith('<?xml version="1.0" encoding="utf-8"?><SemillaModel xmlns:xsd='));
    assert.doesNotMatch(signed, />\s+</);
    for (const field of ['valor', 'fecha']) {
      const value = new RegExp(`<${field}>([^<]*)</${field}>`).exec(seed)?.[1];
      assert.ok(value !== undefined && value.length > 10);
      assert.ok(signed.includes(`<${field}>${value}</${field}>`), field);
    }
  });

  it('verifies in xmlsec1, xml-crypto and our verifier as-is', (t) => {
    if (requireTool(t, 'xmlsec1')) {
      const verdict = verifyWithXmlsec1(signed, key.certificatePem);
      assert.ok(verdict.ok, verdict.output);
    }
    assert.equal(verifyWithXmlCrypto(signed, key.certificatePem), true);
    const result = verifyEnvelopedSignature(signed);
    assert.ok(result.ok && result.verifiedForm === 'as-is', JSON.stringify(result));
  });

  it('signs the same bytes as the fast path given the canonical form', () => {
    assert.equal(signed, signCanonicalDocument(toCanonicalDocument(seed), key));
  });

  it('signs a document without declaration without adding one, dropping comments', () => {
    const result = signXml('<R>\n  <!-- note -->\n  <A>1</A>\n</R>', key);
    assert.ok(result.startsWith('<R><A>1</A><Signature '), result.slice(0, 40));
    assert.equal(verifyEnvelopedSignature(result).ok, true);
  });
});

describe('signXml refuses XML it must not sign', () => {
  const key = testSigningKey();
  const cases: [string, string, XmlInputErrorCode][] = [
    ['a DOCTYPE', '<!DOCTYPE R [<!ENTITY x "y">]><R>&x;</R>', 'doctype_forbidden'],
    ['an external entity', '<?xml version="1.0"?><!DOCTYPE R SYSTEM "file:///etc/passwd"><R/>', 'doctype_forbidden'],
    ['an empty string', '', 'input_empty'],
    ['garbage', 'not xml at all', 'xml_malformed'],
    ['unclosed tags', '<R><A></R>', 'xml_malformed'],
    [
      'a processing instruction outside the root',
      '<?xml-stylesheet href="x"?><R/>',
      'processing_instruction_forbidden',
    ],
    [
      'nesting deep enough to exhaust the stack (refused before any recursion)',
      `${'<a>'.repeat(100_000)}${'</a>'.repeat(100_000)}`,
      'xml_shape_forbidden',
    ],
    ['an already signed document', '<R><Signature xmlns="http://www.w3.org/2000/09/xmldsig#"/></R>', 'already_signed'],
  ];
  for (const [what, xml, code] of cases) {
    it(`refuses ${what} with ${code}`, () => {
      assert.throws(
        () => signXml(xml, key),
        (error: unknown) => error instanceof XmlInputError && error.code === code,
      );
    });
  }
});
