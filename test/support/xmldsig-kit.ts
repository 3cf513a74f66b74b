// I/O for the XMLDSig tests in src/fiscal/xmldsig (which, being fiscal/, may not touch fs, processes or platform/):
// a test signing key, DGII's public samples, and the independent verifiers (xmlsec1, xmllint, xml-crypto).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DOMParser } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import { openP12 } from '../../src/platform/crypto/p12.js';
import { createSelfSignedP12 } from '../../src/platform/crypto/test-certificate.js';
import {
  C14N_1_0,
  ENVELOPED_SIGNATURE,
  RSA_SHA256,
  SHA256,
  XMLDSIG_NAMESPACE,
} from '../../src/fiscal/xmldsig/index.js';
import type { SigningKey } from '../../src/fiscal/xmldsig/index.js';
import { assertToolInstalled } from './tools.js';

const SAMPLES = new URL('../../../shared/dgii/samples/', import.meta.url);

let cachedKey: SigningKey | undefined;

/** One self-signed RSA-2048 key per test process, opened from a .p12 the way the service opens a company's. */
export function testSigningKey(): SigningKey {
  if (cachedKey) return cachedKey;
  const password = 'xmldsig-test';
  const { p12 } = createSelfSignedP12({
    commonName: 'XMLDSIG TEST',
    serialNumber: 'IDCDO-00199999996',
    notBefore: new Date('2026-01-01T00:00:00Z'),
    notAfter: new Date('2036-01-01T00:00:00Z'),
    password,
  });
  const opened = openP12(p12, password);
  if (!opened.ok) throw new Error(`test .p12 did not open: ${opened.message}`);
  cachedKey = { privateKey: opened.value.privateKey, certificatePem: opened.value.certificatePem };
  return cachedKey;
}

export function readSample(name: string): Buffer {
  return readFileSync(new URL(name, SAMPLES));
}

/** The `xml` field of DGII's simulator's multipart body (commercial_approval_response.xml is stored that way). */
export function xmlPartOfMultipart(body: string): string {
  const start = body.indexOf('<?xml');
  const end = body.lastIndexOf('>', body.lastIndexOf('\n--')) + 1;
  return body.slice(start, end);
}

// A test that needs xmlsec1 asks requireTool (./tools.ts) first; the verifiers fail at once without it.
/** xmlsec1's verdict, with the public key taken from `certificatePem` (not from the document). */
export function verifyWithXmlsec1(xml: string, certificatePem: string): { ok: boolean; output: string } {
  assertToolInstalled('xmlsec1');
  return withTempFiles({ 'doc.xml': xml, 'cert.pem': certificatePem }, (dir) => {
    const run = spawnSync(
      'xmlsec1',
      ['--verify', '--enabled-key-data', 'rsa', '--pubkey-cert-pem', join(dir, 'cert.pem'), join(dir, 'doc.xml')],
      { encoding: 'utf8' },
    );
    return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
  });
}

/** xmlsec1's verdict with the certificate embedded in KeyInfo, chain not checked (it is self-signed). */
export function verifyWithXmlsec1Embedded(xml: string | Buffer): { ok: boolean; output: string } {
  assertToolInstalled('xmlsec1');
  return withTempFiles({ 'doc.xml': xml }, (dir) => {
    const run = spawnSync('xmlsec1', ['--verify', '--insecure', join(dir, 'doc.xml')], { encoding: 'utf8' });
    return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
  });
}

/** xml-crypto's verdict with the given certificate; its throw for a bad SignatureValue becomes false. */
export function verifyWithXmlCrypto(xml: string, certificatePem: string): boolean {
  try {
    const signature = new DOMParser()
      .parseFromString(xml, 'text/xml')
      .getElementsByTagNameNS(XMLDSIG_NAMESPACE, 'Signature')
      .item(0);
    if (signature === null) return false;
    const verifier = new SignedXml({ publicCert: certificatePem });
    verifier.loadSignature(signature);
    return verifier.checkSignature(xml);
  } catch {
    return false;
  }
}

/** xml-crypto's own enveloped signature of `xml` in the DGII profile, for byte comparisons with ours. */
export function signWithXmlCrypto(xml: string, key: SigningKey): string {
  const signer = new SignedXml({
    privateKey: key.privateKey.export({ format: 'pem', type: 'pkcs8' }),
    publicCert: key.certificatePem,
    canonicalizationAlgorithm: C14N_1_0,
    signatureAlgorithm: RSA_SHA256,
  });
  signer.addReference({ xpath: '/*', transforms: [ENVELOPED_SIGNATURE], digestAlgorithm: SHA256, isEmptyUri: true });
  signer.computeSignature(xml);
  return signer.getSignedXml();
}

function withTempFiles<T>(files: Record<string, string | Buffer>, use: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'xmldsig-'));
  try {
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
    return use(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// One xmllint oracle for every test (test/support/xmllint.ts).
export { canonicalizeWithXmllint } from './xmllint.js';
