// Verification of signed XML we receive. Structure and algorithms are checked first (signature-structure.ts), then
// the digest and the RSA signature with node:crypto over xml-crypto's C14N (the same canonicalizer the signer uses).
// We do not call xml-crypto's checkSignature: it re-parses the text without our DOCTYPE and size guards, throws
// for a bad SignatureValue, ignores KeyInfo by default and cannot say which check failed; with the shape pinned to
// one Reference to the whole document, the two checks are a few lines each. A document in the compact form (the
// e-CF our writer and DGII's signers produce) first takes a fast path that needs no DOM of the document
// (verifiedCompact); it only ever answers a success the general path would also answer, and leaves everything else,
// refusals included, to that path.
import { createHash, verify } from 'node:crypto';
import { C14nCanonicalization } from 'xml-crypto';
import { scanCompactXml, type CompactXml } from '../xml/compact-xml.js';
import { screenUntrustedXml } from '../xml/screen-untrusted-xml.js';
import { C14N_1_0, ENVELOPED_SIGNATURE, RSA_SHA256, SHA256, XMLDSIG_NAMESPACE } from './profile.js';
import { hashUtf8 } from './sign-canonical.js';
import { securityCode } from './security-code.js';
import { canonicalSignedInfo } from './signature-element.js';
import { base64OfText, certificateOfText, readSignatureStructure } from './signature-structure.js';
import type { SignatureParts } from './signature-structure.js';
import {
  DEFAULT_MAX_BYTES,
  parseScreenedXml,
  parseUntrustedXml,
  removeWhitespaceOnlyText,
} from './parse-untrusted-xml.js';
import type { VerificationProblem, VerificationResult } from './verification-result.js';

export interface VerifyOptions {
  /** Larger input is refused before parsing; 5 MB by default. */
  maxBytes?: number;
}

/** Never throws: every way the input can be wrong is a problem with a code. */
export function verifyEnvelopedSignature(xml: string | Buffer, options: VerifyOptions = {}): VerificationResult {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  return neverThrowing(() => verifiedFast(xml, maxBytes) ?? verifiedByDom(xml, maxBytes));
}

/**
 * verifyEnvelopedSignature for a document the caller screened and scanned already (the bytes `xml`, whose screened
 * text `compact` scanned): the fast path's success without scanning again, else the general path.
 */
export function verifyCompactEnvelopedSignature(xml: string | Buffer, compact: CompactXml): VerificationResult {
  return neverThrowing(() => verifiedCompact(compact) ?? verifiedByDom(xml, DEFAULT_MAX_BYTES));
}

/** The fast path alone (verifiedCompact below): a success, or undefined where the general path must judge. */
export function verifiedFast(
  xml: string | Buffer,
  maxBytes: number = DEFAULT_MAX_BYTES,
): VerificationResult | undefined {
  const screened = screenUntrustedXml(xml, maxBytes);
  const compact = screened.ok ? scanCompactXml(screened.text) : undefined;
  return compact === undefined ? undefined : verifiedCompact(compact);
}

/** The general path alone, whatever the form: what the fast path must agree with (its tests compare them). */
export function verifyEnvelopedSignatureByDom(xml: string | Buffer, options: VerifyOptions = {}): VerificationResult {
  return neverThrowing(() => verifiedByDom(xml, options.maxBytes ?? DEFAULT_MAX_BYTES));
}

function neverThrowing(check: () => VerificationResult): VerificationResult {
  try {
    return check();
  } catch (error) {
    // Nesting deep enough to exhaust the stack (the canonicalizer recurses), or a DOM corner we did not foresee:
    // still a refusal, never an exception for the caller.
    return refuse(
      'xml_unprocessable',
      `The XML could not be checked: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function verifiedByDom(xml: string | Buffer, maxBytes: number): VerificationResult {
  const parsed = parseUntrustedXml(xml, maxBytes);
  if (!parsed.ok) return { ok: false, problems: [parsed.problem] };
  const structure = readSignatureStructure(parsed.root);
  if (!structure.ok) return { ok: false, problems: structure.problems };
  const { parts } = structure;

  const asIs = cryptographicProblems(parsed.root, parts);
  if (asIs.length === 0) return success(parts, 'as-is');
  removeWhitespaceOnlyText(parsed.root);
  if (cryptographicProblems(parsed.root, parts).length === 0) return success(parts, 'whitespace-stripped');
  return {
    ok: false,
    problems: asIs.map((problem) => ({
      ...problem,
      message: `${problem.message} (also with whitespace-only text removed)`,
    })),
  };
}

/**
 * The fast path, for a document in the compact form (fiscal/xml/compact-xml.ts) whose root ends with its Signature:
 * the success the general path below would answer, or undefined for anything else, which that path then judges (so
 * every refusal keeps its one source). Outside the Signature such a document is already its C14N form, so the
 * enveloped-signature digest is a hash of its bytes around the Signature, with no DOM of the document (xmldom spent
 * ~0.4 ms on a 4 KB e-CF, xml-crypto's C14N more); only the Signature is parsed, inside a copy of the root's start
 * tag, so that SignedInfo's canonical form inherits the same namespaces and the same structure checks apply.
 */
function verifiedCompact(compact: CompactXml): VerificationResult | undefined {
  const { text, signature } = compact;
  if (signature === undefined) return undefined;
  const parts = templateSignatureParts(compact, signature) ?? parsedSignatureParts(compact, signature);
  if (parts === undefined) return undefined;
  const hash = hashUtf8(createHash('sha256'), text.slice(compact.rootStart, signature.start), 0);
  const digest = hashUtf8(hash, text.slice(signature.end, compact.rootEnd), 0).digest();
  if (!digest.equals(parts.digestValue) || !signatureVerifies(parts)) return undefined;
  return success(parts, 'as-is');
}

function parsedSignatureParts(
  compact: CompactXml,
  signature: { start: number; end: number },
): SignatureParts | undefined {
  const { text } = compact;
  const parsed = parseScreenedXml(
    `${text.slice(compact.rootStart, compact.rootStartTagEnd)}${text.slice(signature.start, signature.end)}</${compact.rootName}>`,
  );
  if (!parsed.ok) return undefined;
  const structure = readSignatureStructure(parsed.root);
  return structure.ok ? structure.parts : undefined;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const algorithmElement = (name: string, algorithm: string) =>
  `<${name} Algorithm="${escapeRegExp(algorithm)}"(?:/>|></${name}>)`;
/**
 * The Signature exactly as our signer and .NET's SignedXml write it (signature-element.ts): one spelling of the one
 * structure readSignatureStructure allows, with nothing a parser would change (no entity, no CR) in the values
 * captured. Its DOM would be that structure, and its SignedInfo's C14N form is canonicalSignedInfo(DigestValue, the
 * root's declarations): the signer's own string, which xmlsec1 and xml-crypto verify. Any other spelling is parsed.
 */
const signatureTemplate = new RegExp(
  `^<Signature xmlns="${escapeRegExp(XMLDSIG_NAMESPACE)}"><SignedInfo>${algorithmElement('CanonicalizationMethod', C14N_1_0)}${algorithmElement('SignatureMethod', RSA_SHA256)}` +
    `<Reference URI=""><Transforms>${algorithmElement('Transform', ENVELOPED_SIGNATURE)}</Transforms>${algorithmElement('DigestMethod', SHA256)}` +
    '<DigestValue>([A-Za-z0-9+/=]+)</DigestValue></Reference></SignedInfo><SignatureValue>([A-Za-z0-9+/=\\t\\n ]+)</SignatureValue>' +
    '<KeyInfo><X509Data><X509Certificate>([A-Za-z0-9+/=\\t\\n ]+)</X509Certificate></X509Data></KeyInfo></Signature>$',
);

type TemplateParts = Omit<SignatureParts, 'signature' | 'signedInfo'> & { canonicalSignedInfo: Buffer };

function templateSignatureParts(
  compact: CompactXml,
  signature: { start: number; end: number },
): TemplateParts | undefined {
  const match = signatureTemplate.exec(compact.text.slice(signature.start, signature.end));
  if (match === null) return undefined;
  const [, digestText = '', signatureText = '', certificateText = ''] = match;
  const digestValue = base64OfText(digestText);
  const signatureValue = base64OfText(signatureText);
  const certificate = certificateOfText(certificateText);
  if (digestValue !== digestText || signatureValue === undefined || 'code' in certificate) return undefined;
  const declarations = compact.text.slice(compact.rootStart + compact.rootName.length + 1, compact.rootStartTagEnd - 1);
  return {
    digestValue: Buffer.from(digestValue, 'base64'),
    signatureValue,
    certificate,
    canonicalSignedInfo: canonicalSignedInfo(digestValue, declarations),
  };
}

function signatureVerifies(parts: SignatureParts | TemplateParts): boolean {
  if ('canonicalSignedInfo' in parts)
    return verify(
      'sha256',
      parts.canonicalSignedInfo,
      parts.certificate.publicKey,
      Buffer.from(parts.signatureValue, 'base64'),
    );
  const canonicalSignedInfo = new C14nCanonicalization().process(parts.signedInfo, {
    ancestorNamespaces: inheritedNamespaces(parts.signedInfo),
  });
  return verify(
    'sha256',
    Buffer.from(canonicalSignedInfo, 'utf8'),
    parts.certificate.publicKey,
    Buffer.from(parts.signatureValue, 'base64'),
  );
}

function cryptographicProblems(root: Element, parts: SignatureParts): VerificationProblem[] {
  const problems: VerificationProblem[] = [];
  const digest = createHash('sha256').update(canonicalRootWithoutSignature(root, parts.signature), 'utf8').digest();
  if (!digest.equals(parts.digestValue)) {
    problems.push({
      code: 'digest_mismatch',
      message: 'The document does not match the DigestValue: it changed after signing.',
    });
  }
  if (!signatureVerifies(parts)) {
    problems.push({
      code: 'signature_mismatch',
      message: 'The SignatureValue does not verify with the certificate in KeyInfo.',
    });
  }
  return problems;
}

// The enveloped-signature transform: the root's canonical form without the Signature element.
function canonicalRootWithoutSignature(root: Element, signature: Element): string {
  const next = signature.nextSibling;
  root.removeChild(signature);
  try {
    return new C14nCanonicalization().process(root, {});
  } finally {
    root.insertBefore(signature, next);
  }
}

// The namespaces in scope of SignedInfo that inclusive C14N renders on it: nearest declaration wins, undeclarations
// and SignedInfo's own prefixes excluded (as xml-crypto's findAncestorNs does for its own verifier).
function inheritedNamespaces(element: Element): { prefix: string; namespaceURI: string }[] {
  const own = new Set([element.prefix ?? '']);
  for (const attribute of Array.from(element.attributes)) {
    if (attribute.name === 'xmlns' || attribute.name.startsWith('xmlns:')) own.add(attribute.name.slice(6));
  }
  const seen = new Map<string, string>();
  for (
    let ancestor = element.parentNode;
    ancestor !== null && ancestor.nodeType === 1;
    ancestor = ancestor.parentNode
  ) {
    for (const attribute of Array.from((ancestor as Element).attributes)) {
      if (attribute.name !== 'xmlns' && !attribute.name.startsWith('xmlns:')) continue;
      const prefix = attribute.name.slice(6);
      if (!seen.has(prefix)) seen.set(prefix, attribute.value);
    }
  }
  return [...seen]
    .filter(([prefix, uri]) => uri !== '' && !own.has(prefix))
    .map(([prefix, namespaceURI]) => ({ prefix, namespaceURI }));
}

function success(
  parts: Pick<SignatureParts, 'certificate' | 'signatureValue'>,
  verifiedForm: 'as-is' | 'whitespace-stripped',
): VerificationResult {
  return {
    ok: true,
    certificatePem: parts.certificate.toString(),
    signatureValue: parts.signatureValue,
    securityCode: securityCode(parts.signatureValue),
    verifiedForm,
  };
}

function refuse(code: VerificationProblem['code'], message: string): VerificationResult {
  return { ok: false, problems: [{ code, message }] };
}
