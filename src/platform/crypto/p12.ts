// Opens a company's PKCS#12 (.p12/.pfx) once and hands back node:crypto objects. node-forge decrypts the file
// (p12-contents.ts) because node:crypto has no PKCS#12 parser and Dominican CAs still issue legacy RC2-40 files
// (research/stack.md, ".p12 parsing"); everything after that (pairing, validity, signing) is node:crypto.
import { X509Certificate, createHash, createPrivateKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { readP12Contents } from './p12-contents.js';

export interface OpenedCertificate {
  privateKey: KeyObject;
  /** PKCS#8 PEM, for the caller to seal before storing. */
  privateKeyPem: string;
  /** The signer's certificate: the one whose public key matches the private key. */
  certificate: X509Certificate;
  certificatePem: string;
  /** The other certificates in the file (usually the issuing CA chain). */
  chainPem: string[];
  /** As node:crypto writes it: one `KEY=value` per line, special characters escaped. */
  subject: string;
  issuer: string;
  /** Upper-case hex, as node:crypto gives it. */
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  /** SHA-256 of the certificate's DER, lower-case hex without colons. */
  fingerprintSha256: string;
  keyType: string;
  keyBits: number | undefined;
}

export type P12ErrorCode =
  'p12_unreadable' | 'p12_wrong_password' | 'p12_no_private_key' | 'p12_no_certificate' | 'p12_key_mismatch';
export type P12Result = { ok: true; value: OpenedCertificate } | { ok: false; code: P12ErrorCode; message: string };

export type CertificateFindingCode =
  'certificate_not_rsa' | 'certificate_not_yet_valid' | 'certificate_expired' | 'certificate_key_too_small';
export interface CertificateFinding {
  code: CertificateFindingCode;
  message: string;
}

const MIN_RSA_BITS = 2048;

export function openP12(p12: Buffer, password: string): P12Result {
  const read = readP12Contents(p12, password);
  if (!read.ok) return read;
  const contents = read.value;
  if (contents.keys.length === 0) {
    return failure(
      'p12_no_private_key',
      'The .p12 file holds no private key; export it again including the private key.',
    );
  }
  if (contents.certificates.length === 0) return failure('p12_no_certificate', 'The .p12 file holds no certificate.');

  const keys = contents.keys.map(toPrivateKey);
  const certificates = contents.certificates.map(toCertificate);
  if (!keys.every(isPresent))
    return failure('p12_unreadable', 'The private key in the .p12 file is of a kind that cannot be read.');
  if (!certificates.every(isPresent))
    return failure('p12_unreadable', 'A certificate in the .p12 file cannot be read.');

  for (const privateKey of keys) {
    const certificate = certificates.find((candidate) => belongsTogether(candidate, privateKey));
    if (certificate)
      return describe(
        privateKey,
        certificate,
        certificates.filter((other) => other !== certificate),
      );
  }
  return failure('p12_key_mismatch', 'The private key in the .p12 file does not belong to any of its certificates.');
}

/** What makes a certificate unusable for signing e-CF at `now`; [] when it is usable. */
export function assessCertificate(opened: OpenedCertificate, now: Date): CertificateFinding[] {
  const findings: CertificateFinding[] = [];
  if (opened.keyType !== 'rsa') {
    findings.push({
      code: 'certificate_not_rsa',
      message: `The certificate has a ${opened.keyType} key; e-CF signatures (RSA-SHA256) need an RSA key.`,
    });
  } else if (opened.keyBits === undefined || opened.keyBits < MIN_RSA_BITS) {
    const bits = opened.keyBits === undefined ? 'an unknown number of' : String(opened.keyBits);
    findings.push({
      code: 'certificate_key_too_small',
      message: `The certificate's RSA key has ${bits} bits; at least ${MIN_RSA_BITS} are required.`,
    });
  }
  if (now < opened.notBefore) {
    findings.push({
      code: 'certificate_not_yet_valid',
      message: `The certificate is valid only from ${opened.notBefore.toISOString()}.`,
    });
  }
  if (now > opened.notAfter) {
    findings.push({
      code: 'certificate_expired',
      message: `The certificate expired on ${opened.notAfter.toISOString()}.`,
    });
  }
  return findings;
}

function toPrivateKey(der: Buffer): KeyObject | undefined {
  try {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } catch {
    return undefined;
  }
}

function toCertificate(der: Buffer): X509Certificate | undefined {
  try {
    return new X509Certificate(der);
  } catch {
    return undefined;
  }
}

function belongsTogether(certificate: X509Certificate, privateKey: KeyObject): boolean {
  try {
    return certificate.checkPrivateKey(privateKey);
  } catch {
    return false;
  }
}

function isPresent<T>(value: T | undefined): value is T {
  return value !== undefined;
}

function describe(privateKey: KeyObject, certificate: X509Certificate, chain: X509Certificate[]): P12Result {
  // Node 20 has no validFromDate; its validFrom text ("Jan  1 00:00:00 2026 GMT") is one Date parses.
  const notBefore = new Date(certificate.validFrom);
  const notAfter = new Date(certificate.validTo);
  if (Number.isNaN(notBefore.getTime()) || Number.isNaN(notAfter.getTime())) {
    return failure('p12_unreadable', 'The certificate in the .p12 file has validity dates that cannot be read.');
  }
  const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const value: OpenedCertificate = {
    privateKey,
    privateKeyPem,
    certificate,
    certificatePem: certificate.toString(),
    chainPem: chain.map((other) => other.toString()),
    subject: certificate.subject,
    issuer: certificate.issuer,
    serialNumber: certificate.serialNumber,
    notBefore,
    notAfter,
    fingerprintSha256: createHash('sha256').update(certificate.raw).digest('hex'),
    keyType: privateKey.asymmetricKeyType ?? 'unknown',
    keyBits: privateKey.asymmetricKeyDetails?.modulusLength,
  };
  return { ok: true, value };
}

function failure(code: P12ErrorCode, message: string): P12Result {
  return { ok: false, code, message };
}
