// What "DGII would take it" means in the tests, in one place: the document is written in canonical form; signed,
// it is valid for our XSD validator and for the real xmllint against DGII's official schema, and it verifies
// with our verifier and with xmlsec1. Returns the signed document.
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import {
  signCanonicalDocument,
  signXml,
  toCanonicalDocument,
  verifyEnvelopedSignature,
} from '../../src/fiscal/xmldsig/index.js';
import { compileSchemaSet, type SchemaKind, type SchemaSet } from '../../src/fiscal/xsd/index.js';
import { readOfficialXsds } from './dgii-files.js';
import { requireTool } from './tools.js';
import { testSigningKey, verifyWithXmlsec1 } from './xmldsig-kit.js';
import { validateWithOfficialXsd } from './xmllint.js';

let schemas: SchemaSet | undefined;
function officialSchemas(): SchemaSet {
  schemas ??= compileSchemaSet(readOfficialXsds());
  return schemas;
}

/** `general` signs with the DOM signer (for XML we are given, such as the seed); `canonical` with the fast path. */
export function assertDeliverable(
  t: TestContext,
  kind: SchemaKind,
  xml: string,
  signer: 'canonical' | 'general' = 'canonical',
): string {
  assert.equal(toCanonicalDocument(xml), xml, 'written in canonical form');
  const key = testSigningKey();
  const signed = signer === 'canonical' ? signCanonicalDocument(xml, key) : signXml(xml, key);
  // What DGII receives is the signed document (some schemas, ANECF and the seed, even require the Signature).
  assert.deepEqual(officialSchemas().validate(kind, signed), []);
  if (requireTool(t, 'xmllint')) {
    const lint = validateWithOfficialXsd(`${kind}.xsd`, signed);
    assert.equal(lint.valid, true, lint.errors);
  }
  assert.equal(verifyEnvelopedSignature(signed).ok, true);
  if (requireTool(t, 'xmlsec1')) {
    const checked = verifyWithXmlsec1(signed, key.certificatePem);
    assert.equal(checked.ok, true, checked.output);
  }
  return signed;
}
