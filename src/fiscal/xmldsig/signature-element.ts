// The Signature element of the DGII profile, as strings. SignedInfo exists in two spellings: the canonical one that
// is signed, and the one embedded in the document. They differ only in ways C14N erases (the inherited namespace
// declarations, empty-element tags), so any verifier re-canonicalizing the embedded one gets the signed bytes.
import { sign } from 'node:crypto';
import { C14N_1_0, ENVELOPED_SIGNATURE, RSA_SHA256, SHA256, XMLDSIG_NAMESPACE } from './profile.js';
import type { SigningKey } from './profile.js';

/**
 * The SignedInfo that is signed, in canonical form. `inheritedNamespaceDeclarations` are the root's prefixed
 * declarations (` xmlns:xsd="…" xmlns:xsi="…"`, already sorted): inclusive C14N puts the namespaces in scope of
 * SignedInfo on its canonical start tag, after the default xmldsig one (research/stack.md pitfall 4; a DGII ACECF
 * verifies only with them).
 */
export function canonicalSignedInfo(digestValue: string, inheritedNamespaceDeclarations: string): Buffer {
  return Buffer.from(
    `<SignedInfo xmlns="${XMLDSIG_NAMESPACE}"${inheritedNamespaceDeclarations}>` +
      `<CanonicalizationMethod Algorithm="${C14N_1_0}"></CanonicalizationMethod>` +
      `<SignatureMethod Algorithm="${RSA_SHA256}"></SignatureMethod>` +
      `<Reference URI=""><Transforms><Transform Algorithm="${ENVELOPED_SIGNATURE}"></Transform></Transforms>` +
      `<DigestMethod Algorithm="${SHA256}"></DigestMethod><DigestValue>${digestValue}</DigestValue></Reference></SignedInfo>`,
    'utf8',
  );
}

/** The Signature element carrying `signatureValue`, the RSA signature of canonicalSignedInfo(digestValue, …). */
export function embeddedSignature(digestValue: string, signatureValue: Buffer, key: SigningKey): string {
  // Spelled like the DGII samples (.NET SignedXml output): compact, self-closing algorithm elements.
  return (
    `<Signature xmlns="${XMLDSIG_NAMESPACE}"><SignedInfo>` +
    `<CanonicalizationMethod Algorithm="${C14N_1_0}"/>` +
    `<SignatureMethod Algorithm="${RSA_SHA256}"/>` +
    `<Reference URI=""><Transforms><Transform Algorithm="${ENVELOPED_SIGNATURE}"/></Transforms>` +
    `<DigestMethod Algorithm="${SHA256}"/><DigestValue>${digestValue}</DigestValue></Reference></SignedInfo>` +
    `<SignatureValue>${signatureValue.toString('base64')}</SignatureValue>` +
    `<KeyInfo><X509Data><X509Certificate>${cachedCertificateBase64(key.certificatePem)}</X509Certificate></X509Data></KeyInfo>` +
    `</Signature>`
  );
}

/** RSASSA-PKCS1-v1_5 (node's default for RSA keys), as rsa-sha256 requires (RFC 6931 §2.3.2); deterministic. */
export function signatureValueOf(signedInfo: Buffer, key: SigningKey): Buffer {
  return sign('sha256', signedInfo, key.privateKey);
}

/**
 * The same signature computed on libuv's thread pool: the RSA private-key operation is most of a signature's cost,
 * and a server signing many documents keeps its event loop free for the rest of the work.
 */
export function signatureValueInBackground(signedInfo: Buffer, key: SigningKey): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    sign('sha256', signedInfo, key.privateKey, (error, signature) => {
      if (error === null) resolve(signature);
      else reject(error);
    });
  });
}

/** The base64 of the certificates signed with lately, by PEM: a service signs with one or a few certificates, and
 * extracting the base64 with regular expressions on every signature costs more than a lookup. Bounded, since PEM
 * strings come from callers. */
const certificatesBase64 = new Map<string, string>();
const MAX_CACHED_CERTIFICATES = 16;

function cachedCertificateBase64(certificatePem: string): string {
  let base64 = certificatesBase64.get(certificatePem);
  if (base64 === undefined) {
    base64 = certificateBase64(certificatePem);
    if (certificatesBase64.size >= MAX_CACHED_CERTIFICATES) certificatesBase64.clear();
    certificatesBase64.set(certificatePem, base64);
  }
  return base64;
}

/** The base64 DER of a PEM certificate on one line, as KeyInfo/X509Data/X509Certificate holds it (no armour). */
export function certificateBase64(certificatePem: string): string {
  const body = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----/.exec(certificatePem)?.[1];
  if (body === undefined) throw new TypeError('certificatePem holds no PEM certificate.');
  return body.replace(/\s+/g, '');
}
