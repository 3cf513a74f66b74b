import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { syntheticCanonicalEcf } from '../../../test/support/synthetic-ecf.js';
import {
  signWithXmlCrypto,
  testSigningKey,
  verifyWithXmlCrypto,
  verifyWithXmlsec1,
} from '../../../test/support/xmldsig-kit.js';
import { requireTool } from '../../../test/support/tools.js';
import {
  NonCanonicalDocumentError,
  readSignatureValue,
  securityCode,
  signCanonicalDocument,
  signCanonicalDocumentInBackground,
  signXml,
  verifyEnvelopedSignature,
  XMLDSIG_NAMESPACE,
} from './index.js';
import { hashUtf8 } from './sign-canonical.js';

const XSD = 'http://www.w3.org/2001/XMLSchema';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

const documents: [string, string][] = [
  ['a 3-line e-CF', syntheticCanonicalEcf(3)],
  ['a 200-line e-CF', syntheticCanonicalEcf(200)],
  [
    'an e-CF whose root declares xsd and xsi (SignedInfo inherits them)',
    syntheticCanonicalEcf(2, { namespaces: { xsi: XSI, xsd: XSD } }),
  ],
  ['a root with a default namespace and no declaration', '<R xmlns="urn:example"><A>1</A></R>'],
  ['a document with accents and an emoji across a hashing chunk boundary', `<R><A>${'ñ'.repeat(4089)}😀é😀</A></R>`],
];

describe('signCanonicalDocument', () => {
  const key = testSigningKey();

  for (const [what, document] of documents) {
    describe(what, () => {
      const signed = signCanonicalDocument(document, key);

      it('verifies in xmlsec1 with the signer certificate', (t) => {
        if (!requireTool(t, 'xmlsec1')) return;
        const verdict = verifyWithXmlsec1(signed, key.certificatePem);
        assert.ok(verdict.ok, verdict.output);
      });

      it('verifies in xml-crypto and in our verifier, as-is, returning the signer certificate', () => {
        assert.equal(verifyWithXmlCrypto(signed, key.certificatePem), true);
        const result = verifyEnvelopedSignature(signed);
        assert.ok(result.ok, JSON.stringify(result));
        assert.equal(result.verifiedForm, 'as-is');
        assert.equal(result.certificatePem, key.certificatePem);
      });

      it('is byte for byte what xml-crypto and the general signer produce', () => {
        assert.equal(signed, signWithXmlCrypto(document, key));
        assert.equal(signed, signXml(document, key));
      });

      it('leaves the document untouched and appends an unprefixed Signature as the last child of the root', () => {
        const closing = document.slice(document.lastIndexOf('</'));
        const signatureStart = signed.indexOf(`<Signature xmlns="${XMLDSIG_NAMESPACE}">`);
        assert.equal(signed.slice(0, signatureStart), document.slice(0, -closing.length));
        assert.ok(signed.endsWith(`</Signature>${closing}`));
        assert.equal(signed.split('<Signature ').length, 2);
      });

      it('gives a security code made of the first 6 characters of SignatureValue', () => {
        const signatureValue = readSignatureValue(signed);
        assert.ok(signatureValue !== undefined && signatureValue.length > 300);
        assert.equal(securityCode(signatureValue), signatureValue.slice(0, 6));
      });
    });
  }

  it('is deterministic: the same document and key give the same bytes', () => {
    const document = syntheticCanonicalEcf(3);
    assert.equal(signCanonicalDocument(document, key), signCanonicalDocument(document, key));
  });

  it('signs on the thread pool to the same bytes, which verify', async () => {
    const document = syntheticCanonicalEcf(3);
    const inBackground = await signCanonicalDocumentInBackground(document, key);
    assert.equal(inBackground, signCanonicalDocument(document, key));
    assert.equal(verifyEnvelopedSignature(inBackground).ok, true);
  });

  it('covers the content: one changed character after signing fails the digest', (t) => {
    const signed = signCanonicalDocument(syntheticCanonicalEcf(3), key);
    const tampered = signed.replace('<MontoTotal>9000.00<', '<MontoTotal>9000.01<');
    assert.notEqual(tampered, signed);
    const result = verifyEnvelopedSignature(tampered);
    assert.equal(result.ok, false);
    assert.deepEqual(
      result.problems.map((problem) => problem.code),
      ['digest_mismatch'],
    );
    assert.equal(verifyWithXmlCrypto(tampered, key.certificatePem), false);
    if (requireTool(t, 'xmlsec1')) assert.equal(verifyWithXmlsec1(tampered, key.certificatePem).ok, false);
  });

  it('signs the root as written: a root the writer got out of C14N order is refused, not silently mis-signed', () => {
    const misordered = `<ECF xmlns:xsi="${XSI}" xmlns:xsd="${XSD}"><A>1</A></ECF>`;
    assert.throws(() => signCanonicalDocument(misordered, key), NonCanonicalDocumentError);
    assert.throws(() => signCanonicalDocument('<ECF><A>1</A></ECF>\n', key), NonCanonicalDocumentError);
  });
});

describe('hashUtf8', () => {
  const whole = (text: string, start: number) => createHash('sha256').update(text.slice(start), 'utf8').digest('hex');
  const chunked = (text: string, start: number) => hashUtf8(createHash('sha256'), text, start).digest('hex');

  it('hashes the same bytes as the whole string, whatever falls on a chunk boundary', () => {
    const texts = [
      '',
      'a',
      'ascii only'.repeat(2000),
      'ó'.repeat(9000),
      `${'x'.repeat(4095)}😀${'y'.repeat(4095)}😀z`,
      `${'x'.repeat(4095)}\uD800x`,
      `${'x'.repeat(4096)}\uDC00`,
      '€😀'.repeat(5000),
    ];
    for (const text of texts) {
      for (const start of [0, 1, 38]) {
        if (start > text.length) continue;
        assert.equal(
          chunked(text, start),
          whole(text, start),
          `${String(text.length)} characters from ${String(start)}`,
        );
      }
    }
  });
});
