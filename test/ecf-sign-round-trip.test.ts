// The round trip across the fiscal core: parse(sign(build(json))) gives back the model that was built.
// Signing uses the fast path, which refuses any document whose root is not already in C14N form: so this also
// proves the builder's bytes are canonical.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildEcf, normaliseEcf } from '../src/fiscal/build/build-ecf.js';
import { ecfTypes } from '../src/fiscal/model/ecf-model-types.js';
import { parseEcf } from '../src/fiscal/parse/parse-ecf.js';
import { signCanonicalDocument, verifyEnvelopedSignature } from '../src/fiscal/xmldsig/index.js';
import { ecfDocuments, ownedFieldsFor } from './support/ecf-documents.js';
import { requireTool } from './support/tools.js';
import { testSigningKey, verifyWithXmlsec1 } from './support/xmldsig-kit.js';
import { validateWithOfficialXsd } from './support/xmllint.js';

describe('parse(sign(build(json)))', () => {
  const key = testSigningKey();
  for (const type of ecfTypes) {
    describe(`e-CF ${type}`, () => {
      const built = buildEcf(ecfDocuments[type], ownedFieldsFor(type));
      if (!built.ok) throw new Error(JSON.stringify(built.findings));
      const signed = signCanonicalDocument(built.xml, key);

      it('gives back the document that was built', () => {
        const normalised = normaliseEcf(ecfDocuments[type], ownedFieldsFor(type));
        assert.ok(normalised.ok);
        assert.deepEqual(parseEcf(signed), { ok: true, document: normalised.document });
      });

      it('is valid against the official XSD once signed', (t) => {
        if (!requireTool(t, 'xmllint')) return;
        const result = validateWithOfficialXsd(`e-CF-${type}.xsd`, signed);
        assert.ok(result.valid, result.errors);
      });

      it('verifies with our verifier', () => {
        assert.equal(verifyEnvelopedSignature(signed).ok, true);
      });

      it('verifies in xmlsec1', (t) => {
        if (!requireTool(t, 'xmlsec1')) return;
        const verdict = verifyWithXmlsec1(signed, key.certificatePem);
        assert.ok(verdict.ok, verdict.output);
      });
    });
  }
});
