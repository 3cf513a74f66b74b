// What a received Signature may look like: the DGII profile (Firmado de e-CF; research/dgii-protocol.md §4) and
// nothing else. One Signature, last child of the root; one Reference to the whole document; the enveloped
// transform only; allow-listed algorithms. Pinning the shape this tightly is what rules out signature wrapping
// (a Reference to some other element) and algorithm downgrades (SHA-1, HMAC, exclusive or with-comments C14N:
// Firmado names REC-xml-c14n-20010315, the variant without comments, and DGII's samples use nothing else).
import { X509Certificate } from 'node:crypto';
import { C14N_1_0, ENVELOPED_SIGNATURE, RSA_SHA256, SHA256, XMLDSIG_NAMESPACE } from './profile.js';
import { elementChildren } from './parse-untrusted-xml.js';
import type { VerificationProblem, VerificationProblemCode } from './verification-result.js';

export interface SignatureParts {
  signature: Element;
  signedInfo: Element;
  digestValue: Buffer;
  signatureValue: string;
  certificate: X509Certificate;
}

export type StructureResult = { ok: true; parts: SignatureParts } | { ok: false; problems: VerificationProblem[] };

export function readSignatureStructure(root: Element): StructureResult {
  const signatures = Array.from(root.ownerDocument.getElementsByTagNameNS(XMLDSIG_NAMESPACE, 'Signature'));
  const [signature] = signatures;
  if (signature === undefined) return failure('signature_missing', 'The XML has no XMLDSig Signature.');
  if (signatures.length > 1)
    return failure(
      'signature_multiple',
      `The XML has ${signatures.length} Signature elements; exactly one is allowed.`,
    );
  if (signature.parentNode !== root || elementChildren(root).at(-1) !== signature) {
    return failure('signature_not_last_child', 'The Signature must be the last child of the root element.');
  }

  const problems: VerificationProblem[] = [];
  const problem = (code: VerificationProblemCode, message: string) => problems.push({ code, message });
  const [signedInfo, signatureValueElement, keyInfo, ...extra] = elementChildren(signature);
  if (
    !is(signedInfo, 'SignedInfo') ||
    !is(signatureValueElement, 'SignatureValue') ||
    !is(keyInfo, 'KeyInfo') ||
    extra.length > 0
  ) {
    return failure(
      'signature_malformed',
      'The Signature must hold exactly SignedInfo, SignatureValue and KeyInfo, in that order.',
    );
  }

  const [canonicalization, signatureMethod, ...references] = elementChildren(signedInfo);
  if (!is(canonicalization, 'CanonicalizationMethod') || !is(signatureMethod, 'SignatureMethod')) {
    return failure('signature_malformed', 'SignedInfo must start with CanonicalizationMethod and SignatureMethod.');
  }
  const algorithm = (element: Element) => element.getAttribute('Algorithm') ?? '';
  if (algorithm(canonicalization) !== C14N_1_0) {
    problem(
      'canonicalization_not_allowed',
      `CanonicalizationMethod "${algorithm(canonicalization)}" is not allowed; DGII uses ${C14N_1_0}.`,
    );
  }
  if (algorithm(signatureMethod) !== RSA_SHA256 || signatureMethod.firstChild !== null) {
    problem(
      'signature_algorithm_not_allowed',
      `SignatureMethod "${algorithm(signatureMethod)}" is not allowed; DGII uses ${RSA_SHA256}.`,
    );
  }

  const [reference] = references;
  if (reference === undefined || references.length !== 1 || !is(reference, 'Reference')) {
    return failure(
      'reference_count',
      `SignedInfo must hold exactly one Reference (found ${references.length}).`,
      problems,
    );
  }
  if (reference.getAttribute('URI') !== '' || !reference.hasAttribute('URI')) {
    problem(
      'reference_uri_not_empty',
      `The Reference URI must be "" (the whole document), not "${reference.getAttribute('URI') ?? '(none)'}".`,
    );
  }
  const [transforms, digestMethod, digestValueElement, ...afterDigest] = elementChildren(reference);
  if (
    !is(transforms, 'Transforms') ||
    !is(digestMethod, 'DigestMethod') ||
    !is(digestValueElement, 'DigestValue') ||
    afterDigest.length > 0
  ) {
    return failure(
      'signature_malformed',
      'The Reference must hold exactly Transforms, DigestMethod and DigestValue.',
      problems,
    );
  }
  const transformList = elementChildren(transforms);
  const [transform] = transformList;
  if (
    transformList.length !== 1 ||
    transform === undefined ||
    !is(transform, 'Transform') ||
    algorithm(transform) !== ENVELOPED_SIGNATURE ||
    transform.firstChild !== null
  ) {
    const found = transformList.map(algorithm).join(', ');
    problem(
      'transform_not_allowed',
      `The only transform allowed is ${ENVELOPED_SIGNATURE}; found: ${found === '' ? 'none' : found}.`,
    );
  }
  if (algorithm(digestMethod) !== SHA256) {
    problem(
      'digest_algorithm_not_allowed',
      `DigestMethod "${algorithm(digestMethod)}" is not allowed; DGII uses ${SHA256}.`,
    );
  }

  const certificate = readCertificate(keyInfo);
  if ('code' in certificate) problems.push(certificate);
  const digestValue = base64Text(digestValueElement);
  const signatureValue = base64Text(signatureValueElement);
  if (digestValue === undefined) problem('signature_malformed', 'DigestValue is not base64.');
  if (signatureValue === undefined) problem('signature_malformed', 'SignatureValue is not base64.');
  if (problems.length > 0 || digestValue === undefined || signatureValue === undefined || 'code' in certificate)
    return { ok: false, problems };
  return {
    ok: true,
    parts: { signature, signedInfo, digestValue: Buffer.from(digestValue, 'base64'), signatureValue, certificate },
  };
}

/**
 * The RSA certificates read lately, by the SHA-256 of their base64 text (one spelling of their DER bytes; the text
 * itself would be a slice that keeps the whole document alive): a receiver hears from the same few signers again
 * and again, and parsing the DER was the largest single cost of a verification after the XML parse. Only
 * certificates that passed every check below are kept, so a hit needs none again. Bounded in count and in size,
 * since the text comes from senders (a real certificate is 1 to 3 KB); the least recently used goes first (a Map
 * keeps insertion order).
 */
const readCertificates = new Map<string, X509Certificate>();
export const maxReadCertificates = 64;
const maxKeptCertificateText = 16 * 1024;

function readCertificate(keyInfo: Element): X509Certificate | VerificationProblem {
  const certificates = Array.from(keyInfo.getElementsByTagNameNS(XMLDSIG_NAMESPACE, 'X509Certificate'));
  const [element] = certificates;
  if (element === undefined)
    return { code: 'certificate_missing', message: 'KeyInfo holds no X509Data/X509Certificate.' };
  if (certificates.length > 1)
    return {
      code: 'certificate_multiple',
      message: `KeyInfo holds ${certificates.length} certificates; DGII's profile has exactly one, the signer's.`,
    };
  return certificateOfText(element.textContent);
}

/**
 * The RSA certificate an X509Certificate element's text holds (base64, whitespace allowed), read once per signer:
 * kept by the text itself, so a signer seen before costs a map lookup (its base64 checked and hashed again cost more
 * than the rest of the signature's check but the RSA operation).
 */
export function certificateOfText(text: string): X509Certificate | VerificationProblem {
  const known = readCertificates.get(text);
  if (known !== undefined) {
    readCertificates.delete(text);
    readCertificates.set(text, known);
    return known;
  }
  const base64 = base64OfText(text);
  if (base64 === undefined) return certificateUnreadable();
  const certificate = readRsaCertificate(base64);
  if (!('code' in certificate) && text.length <= maxKeptCertificateText) {
    if (readCertificates.size >= maxReadCertificates)
      readCertificates.delete(readCertificates.keys().next().value as string);
    readCertificates.set(text, certificate);
  }
  return certificate;
}

const certificateUnreadable = (): VerificationProblem => ({
  code: 'certificate_unreadable',
  message: 'The X509Certificate in KeyInfo is not a readable DER certificate.',
});

function readRsaCertificate(base64: string): X509Certificate | VerificationProblem {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(Buffer.from(base64, 'base64'));
  } catch {
    return certificateUnreadable();
  }
  // rsa-sha256 means RSASSA-PKCS1-v1_5: an EC or RSA-PSS key must not be accepted under that name.
  if (certificate.publicKey.asymmetricKeyType !== 'rsa') {
    return {
      code: 'certificate_not_rsa',
      message: `The certificate's key is ${certificate.publicKey.asymmetricKeyType ?? 'of an unknown type'}, not RSA.`,
    };
  }
  return certificate;
}

function is(element: Element | undefined, localName: string): element is Element {
  return element?.namespaceURI === XMLDSIG_NAMESPACE && element.localName === localName;
}

function base64Text(element: Element): string | undefined {
  return base64OfText(element.textContent);
}

/** The base64 an element's text holds, whitespace removed; undefined when it is not base64. */
export function base64OfText(content: string): string | undefined {
  const text = /\s/.test(content) ? content.replace(/\s+/g, '') : content;
  // Whole groups of four, padding only at the end: the same strings as /^(?:[A-Za-z0-9+/]{4})*(?:..==|...=)?$/,
  // without a backtracking group per four characters (a third of the time on a certificate).
  return text !== '' && text.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(text) ? text : undefined;
}

function failure(code: VerificationProblemCode, message: string, earlier: VerificationProblem[] = []): StructureResult {
  return { ok: false, problems: [...earlier, { code, message }] };
}
