import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { describe, it } from 'node:test';
import forge from 'node-forge';
import { syntheticCanonicalEcf } from '../../../test/support/synthetic-ecf.js';
import {
  readSample,
  testSigningKey,
  verifyWithXmlsec1Embedded,
  xmlPartOfMultipart,
} from '../../../test/support/xmldsig-kit.js';
import { requireTool } from '../../../test/support/tools.js';
import { readSignatureValue, signCanonicalDocument, verifyEnvelopedSignature } from './index.js';
import type { SigningKey, VerificationProblemCode, VerifiedForm } from './index.js';
import { maxReadCertificates } from './signature-structure.js';
import { verifiedFast, verifyEnvelopedSignatureByDom } from './verify.js';

describe('verifyEnvelopedSignature on the public DGII samples (dgii/README.md)', () => {
  const valid: [file: string, code: string | undefined, form: VerifiedForm][] = [
    ['130359334E310000008928.xml', 'IK4pIs', 'as-is'],
    ['signedXml.xml', 'gG/XYZ', 'as-is'],
    ['130862346E310005000201.xml', 'c0qwgy', 'as-is'],
    ['seed-test_140133.xml', undefined, 'whitespace-stripped'],
    ['customer_receipt.xml', undefined, 'whitespace-stripped'],
  ];
  for (const [file, code, form] of valid) {
    it(`verifies ${file} ${form}${code === undefined ? '' : ` with security code ${code}`}`, () => {
      const bytes = readSample(file);
      const result = verifyEnvelopedSignature(bytes);
      assert.ok(result.ok, JSON.stringify(result));
      assert.equal(result.verifiedForm, form);
      if (code !== undefined) assert.equal(result.securityCode, code);
      assert.equal(result.signatureValue, readSignatureValue(bytes.toString('utf8')));
      assert.match(result.certificatePem, /^-----BEGIN CERTIFICATE-----\n/);
    });
  }

  it("verifies DGII's simulator ACECF as-is (its SignedInfo inherits the root's xsi and xsd)", () => {
    const acecf = xmlPartOfMultipart(readSample('commercial_approval_response.xml').toString('utf8'));
    assert.match(acecf, /^<\?xml version="1.0"\?><ACECF xmlns:xsi=/);
    const result = verifyEnvelopedSignature(acecf);
    assert.ok(result.ok && result.verifiedForm === 'as-is', JSON.stringify(result));
  });

  it('refuses the tampered sample', (t) => {
    const bytes = readSample('130359334E310000008928-invalid.xml');
    const result = verifyEnvelopedSignature(bytes);
    assert.equal(result.ok, false);
    if (requireTool(t, 'xmlsec1'))
      assert.equal(verifyWithXmlsec1Embedded(bytes).ok, false, 'xmlsec1 agrees it is invalid');
  });

  it('agrees with xmlsec1 on the compact valid samples', (t) => {
    if (!requireTool(t, 'xmlsec1')) return;
    for (const [file, , form] of valid)
      if (form === 'as-is') assert.ok(verifyWithXmlsec1Embedded(readSample(file)).ok, file);
  });
});

describe('verifyEnvelopedSignature on what we sign', () => {
  const key = testSigningKey();
  const signed = signCanonicalDocument(syntheticCanonicalEcf(3), key);

  it('verifies the exact signed string, and the same bytes as a Buffer, and the same bytes after a BOM', () => {
    for (const input of [
      signed,
      Buffer.from(signed, 'utf8'),
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(signed)]),
    ]) {
      const result = verifyEnvelopedSignature(input);
      assert.ok(result.ok && result.verifiedForm === 'as-is', JSON.stringify(result));
    }
  });

  it('ignores whitespace the enveloped transform removes anyway (inside Signature, outside SignedInfo)', () => {
    const result = verifyEnvelopedSignature(signed.replace('<SignedInfo>', '\r\n  <SignedInfo>'));
    assert.ok(result.ok && result.verifiedForm === 'as-is', JSON.stringify(result));
  });

  it('verifies indentation added inside SignedInfo only once whitespace-only text is removed, and says so', () => {
    const result = verifyEnvelopedSignature(signed.replace('<SignedInfo>', '<SignedInfo>\r\n    '));
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.verifiedForm, 'whitespace-stripped');
  });

  it('refuses a reformatted signed document with digest_mismatch', () => {
    const reformatted = signed.replace('<Encabezado>', '<Encabezado> x ');
    assertRefused(verifyEnvelopedSignature(reformatted), 'digest_mismatch');
  });

  it('refuses a changed SignatureValue with signature_mismatch', () => {
    const value = readSignatureValue(signed) ?? '';
    const changed = `${value.slice(0, 10)}${value[10] === 'A' ? 'B' : 'A'}${value.slice(11)}`;
    assertRefused(verifyEnvelopedSignature(signed.replace(value, changed)), 'signature_mismatch');
  });

  it('refuses a signature whose KeyInfo carries another certificate', () => {
    const other = readSignatureCertificate(readSample('130359334E310000008928.xml').toString('utf8'));
    const swapped = signed.replace(readSignatureCertificate(signed), other);
    assertRefused(verifyEnvelopedSignature(swapped), 'signature_mismatch');
  });

  it('a certificate read before vouches for nothing: its next document is checked with its key all the same', () => {
    const sample = readSample('130359334E310000008928.xml');
    assert.ok(verifyEnvelopedSignature(sample).ok);
    const borrowed = signed.replace(
      readSignatureCertificate(signed),
      readSignatureCertificate(sample.toString('utf8')),
    );
    assertRefused(verifyEnvelopedSignature(borrowed), 'signature_mismatch');
    assert.ok(verifyEnvelopedSignature(sample).ok);
    assert.ok(verifyEnvelopedSignature(signed).ok);
  });

  it(`verifies documents from more signers than the ${String(maxReadCertificates)} certificates it keeps read, and the first again after them`, () => {
    // One key under many certificates (a signer renewing its certificate looks like this too).
    const certificates = certificatesOf(key, maxReadCertificates + 2);
    const document = syntheticCanonicalEcf(1);
    for (const certificatePem of [...certificates, certificates[0]!]) {
      const result = verifyEnvelopedSignature(signCanonicalDocument(document, { ...key, certificatePem }));
      assert.ok(result.ok, JSON.stringify(result));
      assert.equal(result.certificatePem, new X509Certificate(certificatePem).toString());
    }
  });
});

/** `count` self-signed certificates of `key`'s public key, each with its own serial number. */
function certificatesOf(key: SigningKey, count: number): string[] {
  const privateKey = forge.pki.privateKeyFromPem(key.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
  return Array.from({ length: count }, (_, i) => {
    const certificate = forge.pki.createCertificate();
    certificate.publicKey = forge.pki.setRsaPublicKey(privateKey.n, privateKey.e);
    certificate.serialNumber = (1_000 + i).toString(16);
    certificate.validity.notBefore = new Date('2026-01-01T00:00:00Z');
    certificate.validity.notAfter = new Date('2036-01-01T00:00:00Z');
    certificate.setSubject([{ name: 'commonName', value: `SIGNER ${String(i)}` }]);
    certificate.setIssuer([{ name: 'commonName', value: `SIGNER ${String(i)}` }]);
    certificate.sign(privateKey, forge.md.sha256.create());
    return forge.pki.certificateToPem(certificate);
  });
}

describe('verifyEnvelopedSignature refuses hostile and broken input with a specific code, never a throw', () => {
  const key = testSigningKey();
  const signed = signCanonicalDocument(syntheticCanonicalEcf(2), key);
  const signatureElement = signed.slice(
    signed.indexOf('<Signature '),
    signed.indexOf('</Signature>') + '</Signature>'.length,
  );
  const cert = readSignatureCertificate(signed);
  const sixMegabytes = `<R>${'<A>x</A>'.repeat(800_000)}</R>`;

  const cases: [what: string, input: () => string | Buffer, code: VerificationProblemCode][] = [
    [
      'XXE',
      () => `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><r>&xxe;</r>`,
      'doctype_forbidden',
    ],
    [
      'billion laughs',
      () => `<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;">]><lolz>&lol2;</lolz>`,
      'doctype_forbidden',
    ],
    [
      'a bare DOCTYPE before a valid signature',
      () => signed.replace('<ECF>', '<!DOCTYPE ECF><ECF>'),
      'doctype_forbidden',
    ],
    ['two Signatures', () => signed.replace('<Signature ', `${signatureElement}<Signature `), 'signature_multiple'],
    [
      'a Signature that is not the last child of the root',
      () => signed.replace(signatureElement, '').replace('</Encabezado>', `${signatureElement}</Encabezado>`),
      'signature_not_last_child',
    ],
    ['no Signature', () => syntheticCanonicalEcf(1), 'signature_missing'],
    [
      'a Reference to an Id',
      () => signed.replace('<Reference URI="">', '<Reference URI="#x">'),
      'reference_uri_not_empty',
    ],
    ['a Reference without URI', () => signed.replace('<Reference URI="">', '<Reference>'), 'reference_uri_not_empty'],
    ['two References', () => signed.replace(/(<Reference [\s\S]*<\/Reference>)/, '$1$1'), 'reference_count'],
    [
      'RSA-SHA1',
      () => signed.replace('xmldsig-more#rsa-sha256', '../2000/09/xmldsig#rsa-sha1'),
      'signature_algorithm_not_allowed',
    ],
    [
      'HMAC-SHA256',
      () => signed.replace('xmldsig-more#rsa-sha256', 'xmldsig-more#hmac-sha256'),
      'signature_algorithm_not_allowed',
    ],
    [
      'a SHA-1 digest',
      () => signed.replace('http://www.w3.org/2001/04/xmlenc#sha256', 'http://www.w3.org/2000/09/xmldsig#sha1'),
      'digest_algorithm_not_allowed',
    ],
    [
      'an extra transform',
      () =>
        signed.replace(
          '</Transforms>',
          '<Transform Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"/></Transforms>',
        ),
      'transform_not_allowed',
    ],
    [
      'an XPath transform instead of enveloped',
      () =>
        signed.replace(
          '2000/09/xmldsig#enveloped-signature"/>',
          'TR/1999/REC-xpath-19991116"><XPath>1</XPath></Transform>',
        ),
      'transform_not_allowed',
    ],
    [
      'exclusive C14N',
      () => signed.replace('REC-xml-c14n-20010315', '../2001/10/xml-exc-c14n#'),
      'canonicalization_not_allowed',
    ],
    [
      'C14N with comments',
      () => signed.replace('REC-xml-c14n-20010315', 'REC-xml-c14n-20010315#WithComments'),
      'canonicalization_not_allowed',
    ],
    [
      'an Object in the Signature',
      () => signed.replace('</KeyInfo>', '</KeyInfo><Object>x</Object>'),
      'signature_malformed',
    ],
    [
      'a SignatureValue that is not base64',
      () => readSample('130359334E310000008928-invalid.xml'),
      'signature_malformed',
    ],
    ['KeyInfo without a certificate', () => signed.replace(/<X509Data>.*<\/X509Data>/, ''), 'certificate_missing'],
    [
      'two certificates',
      () => signed.replace('</X509Data>', `<X509Certificate>${cert}</X509Certificate></X509Data>`),
      'certificate_multiple',
    ],
    ['a certificate that is not DER', () => signed.replace(cert, 'AAAA'), 'certificate_unreadable'],
    ['6 MB', () => sixMegabytes, 'input_too_large'],
    ['6 MB as bytes', () => Buffer.from(sixMegabytes), 'input_too_large'],
    ['garbage', () => 'hello, world', 'xml_malformed'],
    ['binary garbage', () => Buffer.from([0x3c, 0x52, 0x3e, 0xff, 0xfe, 0x3c]), 'input_not_utf8'],
    ['unclosed XML', () => '<R><A>', 'xml_malformed'],
    ['text after the root', () => `${signed}trailing`, 'xml_malformed'],
    ['an empty string', () => '', 'input_empty'],
    ['whitespace only', () => '  \n ', 'input_empty'],
    ['an empty Buffer', () => Buffer.alloc(0), 'input_empty'],
    [
      'bytes that declare ISO-8859-1',
      () => Buffer.from(signed.replace('encoding="utf-8"', 'encoding="ISO-8859-1"')),
      'encoding_unsupported',
    ],
    [
      'nesting deep enough to exhaust the stack (refused before any recursion)',
      () => `<R>${'<a>'.repeat(100_000)}${'</a>'.repeat(100_000)}${signatureElement}</R>`,
      'xml_shape_forbidden',
    ],
    ['a processing instruction outside the root', () => `${signed}<?evil x?>`, 'processing_instruction_forbidden'],
  ];
  for (const [what, input, code] of cases) {
    it(`refuses ${what} with ${code}`, () => {
      let result: ReturnType<typeof verifyEnvelopedSignature> | undefined;
      assert.doesNotThrow(() => {
        result = verifyEnvelopedSignature(input());
      });
      assert.ok(result !== undefined);
      assertRefused(result, code);
    });
  }

  it('applies maxBytes', () => {
    assert.ok(verifyEnvelopedSignature(signed).ok);
    assertRefused(verifyEnvelopedSignature(signed, { maxBytes: 1000 }), 'input_too_large');
  });
});

function assertRefused(result: ReturnType<typeof verifyEnvelopedSignature>, code: VerificationProblemCode): void {
  assert.equal(result.ok, false, `expected ${code}, but it verified`);
  const codes = result.problems.map((problem) => problem.code);
  assert.ok(codes.includes(code), `expected ${code}, got ${JSON.stringify(result.problems)}`);
  for (const problem of result.problems) assert.ok(problem.message.length > 10);
}

function readSignatureCertificate(xml: string): string {
  return /<X509Certificate>([^<]+)<\/X509Certificate>/.exec(xml)?.[1] ?? '';
}

describe('the fast path for compact documents (verify.ts verifiedCompact) answers only what the DOM path answers', () => {
  const key = testSigningKey();
  const namespaces = { xsd: 'http://www.w3.org/2001/XMLSchema', xsi: 'http://www.w3.org/2001/XMLSchema-instance' };
  const signed = signCanonicalDocument(syntheticCanonicalEcf(3), key);
  const signedWithNamespaces = signCanonicalDocument(syntheticCanonicalEcf(2, { namespaces }), key);
  const signatureStart = signed.indexOf('<Signature ');
  const signatureEnd = signed.indexOf('</Signature>') + '</Signature>'.length;
  const xmlsec1Wrapped = (value: string) => value.replace(/(.{64})/g, '$1\n');

  // Variants the fast path must take (fast: true) or must leave to the DOM path (fast: false), valid or not.
  const variants: [what: string, xml: () => string | Buffer, fast: boolean][] = [
    ['our signed e-CF', () => signed, true],
    [
      'our signed e-CF as bytes after a BOM',
      () => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(signed)]),
      true,
    ],
    ['our signed e-CF whose root declares xsd and xsi (SignedInfo inherits them)', () => signedWithNamespaces, true],
    ["DGII's sample e-CF", () => readSample('130359334E310000008928.xml'), true],
    [
      'the Signature in the long spelling (end tags, not empty-element tags)',
      () => signed.replace(/<(\w+) Algorithm="([^"]+)"\/>/g, '<$1 Algorithm="$2"></$1>'),
      true,
    ],
    [
      'a SignatureValue and certificate wrapped at 64 characters, as xmlsec1 writes them',
      () =>
        signed.replace(
          /<(SignatureValue|X509Certificate)>([^<]+)</g,
          (_, name: string, value: string) => `<${name}>${xmlsec1Wrapped(value)}<`,
        ),
      true,
    ],
    [
      'whitespace inside the Signature outside SignedInfo (parsed, not the template)',
      () => signed.replace('<KeyInfo>', '\n  <KeyInfo>'),
      true,
    ],
    [
      'a newline between the Signature and the root end tag (signed text: the digest changes)',
      () => `${signed.slice(0, signatureEnd)}\n${signed.slice(signatureEnd)}`,
      false,
    ],
    ['a changed value in the body', () => signed.replace('<NumeroLinea>1<', '<NumeroLinea>9<'), false],
    ['a changed DigestValue', () => signed.replace(/<DigestValue>./, '<DigestValue>A'), false],
    [
      'a changed SignatureValue',
      () => signed.replace(/<SignatureValue>./, (m) => (m.endsWith('A') ? '<SignatureValue>B' : '<SignatureValue>A')),
      false,
    ],
    ['indentation added inside SignedInfo', () => signed.replace('<SignedInfo>', '<SignedInfo>\n    '), false],
    ['a comment in the body', () => signed.replace('<Encabezado>', '<Encabezado><!-- x -->'), false],
    ['an attribute in the body', () => signed.replace('<Encabezado>', '<Encabezado a="1">'), false],
    ['an empty-element tag in the body', () => signed.replace('<Encabezado>', '<Encabezado><X/>'), false],
    ['a character reference C14N would write as the character', () => signed.replace('café', 'caf&#233;'), false],
    ['&quot; in text', () => signed.replace('café', 'caf&quot;'), false],
    ['a literal > in text', () => signed.replace('&gt;', '>'), false],
    ['a CR in text', () => signed.replace('café', 'caf\r'), false],
    ['a CDATA section', () => signed.replace('café', '<![CDATA[café]]>'), false],
    ['a processing instruction in the body', () => signed.replace('<Encabezado>', '<Encabezado><?pi x?>'), false],
    ['a processing instruction after the root', () => `${signed}<?evil x?>`, false],
    [
      'root namespace declarations out of C14N order',
      () =>
        signedWithNamespaces.replace(
          / xmlns:xsd="[^"]+" xmlns:xsi="[^"]+"/,
          ` xmlns:xsi="${namespaces.xsi}" xmlns:xsd="${namespaces.xsd}"`,
        ),
      false,
    ],
    ['a default namespace on the root', () => signed.replace('<ECF>', '<ECF xmlns="urn:x">'), false],
    [
      'an element after the Signature',
      () => `${signed.slice(0, signatureEnd)}<X>1</X>${signed.slice(signatureEnd)}`,
      false,
    ],
    ['text after the Signature', () => `${signed.slice(0, signatureEnd)}x${signed.slice(signatureEnd)}`, false],
    [
      'two Signatures',
      () =>
        `${signed.slice(0, signatureStart)}${signed.slice(signatureStart, signatureEnd)}${signed.slice(signatureStart)}`,
      false,
    ],
    [
      'a prefixed Signature',
      () => signed.replace('<Signature xmlns=', '<ds:Signature xmlns:ds=').replace('</Signature>', '</ds:Signature>'),
      false,
    ],
    ['mismatched end tags', () => signed.replace('</Encabezado>', '</Encabezad>'), false],
    ['text after the root', () => `${signed}x`, false],
    [
      'a comment inside SignedInfo (C14N drops it; parsed, not the template)',
      () => signed.replace('<SignedInfo>', '<SignedInfo><!-- x -->'),
      true,
    ],
    [
      'an entity inside the SignatureValue',
      () => signed.replace(/<SignatureValue>(.)/, (_, c: string) => `<SignatureValue>&#${String(c.charCodeAt(0))};`),
      true,
    ],
  ];
  for (const [what, xml, fast] of variants) {
    it(`${what}: ${fast ? 'fast path' : 'left to the DOM path'}, same verdict`, () => {
      const input = xml();
      const viaFast = verifiedFast(input);
      const result = verifyEnvelopedSignature(input);
      assert.deepEqual(result, verifyEnvelopedSignatureByDom(input));
      if (fast) {
        assert.ok(viaFast?.ok === true && viaFast.verifiedForm === 'as-is', JSON.stringify(viaFast));
        assert.deepEqual(viaFast, result);
      } else {
        assert.equal(viaFast, undefined);
      }
    });
  }

  it('what the fast path accepts, xmlsec1 verifies; what it leaves, xmlsec1 refuses or it verifies only after whitespace removal', (t) => {
    if (!requireTool(t, 'xmlsec1')) return;
    for (const [what, xml, fast] of variants) {
      const input = xml();
      if (fast) assert.ok(verifyWithXmlsec1Embedded(input).ok, what);
    }
  });
});
