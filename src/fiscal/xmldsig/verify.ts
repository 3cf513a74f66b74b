// Verification of signed XML we receive. Structure and algorithms are checked first (signature-structure.ts), then
// the digest and the RSA signature with node:crypto over xml-crypto's C14N (the same canonicalizer the signer uses).
// We do not call xml-crypto's checkSignature: it re-parses the text without our DOCTYPE and size guards, throws
// for a bad SignatureValue, ignores KeyInfo by default and cannot say which check failed; with the shape pinned to
// one Reference to the whole document, the two checks are a few lines each.
import { createHash, verify } from 'node:crypto';
import { C14nCanonicalization } from 'xml-crypto';
import { securityCode } from './security-code.js';
import { readSignatureStructure } from './signature-structure.js';
import type { SignatureParts } from './signature-structure.js';
import { DEFAULT_MAX_BYTES, parseUntrustedXml, removeWhitespaceOnlyText } from './untrusted-xml.js';
import type { VerificationProblem, VerificationResult } from './verification-result.js';

export interface VerifyOptions {
  /** Larger input is refused before parsing; 5 MB by default. */
  maxBytes?: number;
}

const PROCESSING_INSTRUCTION_NODE = 7;

/** Never throws: every way the input can be wrong is a problem with a code. */
export function verifyEnvelopedSignature(xml: string | Buffer, options: VerifyOptions = {}): VerificationResult {
  try {
    return verifyParsed(xml, options.maxBytes ?? DEFAULT_MAX_BYTES);
  } catch (error) {
    // Nesting deep enough to exhaust the stack (the canonicalizer recurses), or a DOM corner we did not foresee:
    // still a refusal, never an exception for the caller.
    return refuse('xml_unprocessable', `The XML could not be checked: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function verifyParsed(xml: string | Buffer, maxBytes: number): VerificationResult {
  const parsed = parseUntrustedXml(xml, maxBytes);
  if (!parsed.ok) return { ok: false, problems: [parsed.problem] };
  for (let node = parsed.document.firstChild; node !== null; node = node.nextSibling) {
    if (node.nodeType === PROCESSING_INSTRUCTION_NODE && node.nodeName !== 'xml') {
      // URI="" covers such a node for xmlsec1 but not for xml-crypto: refuse rather than pick a meaning.
      return refuse('processing_instruction_forbidden', `The XML has a processing instruction <?${node.nodeName}?> outside its root element.`);
    }
  }
  const structure = readSignatureStructure(parsed.root);
  if (!structure.ok) return { ok: false, problems: structure.problems };
  const { parts } = structure;

  const asIs = cryptographicProblems(parsed.root, parts);
  if (asIs.length === 0) return success(parts, 'as-is');
  removeWhitespaceOnlyText(parsed.root);
  if (cryptographicProblems(parsed.root, parts).length === 0) return success(parts, 'whitespace-stripped');
  return {
    ok: false,
    problems: asIs.map((problem) => ({ ...problem, message: `${problem.message} (also with whitespace-only text removed)` })),
  };
}

function cryptographicProblems(root: Element, parts: SignatureParts): VerificationProblem[] {
  const problems: VerificationProblem[] = [];
  const digest = createHash('sha256').update(canonicalRootWithoutSignature(root, parts.signature), 'utf8').digest();
  if (!digest.equals(parts.digestValue)) {
    problems.push({ code: 'digest_mismatch', message: 'The document does not match the DigestValue: it changed after signing.' });
  }
  const canonicalSignedInfo = new C14nCanonicalization().process(parts.signedInfo, { ancestorNamespaces: inheritedNamespaces(parts.signedInfo) });
  const signature = Buffer.from(parts.signatureValue, 'base64');
  if (!verify('sha256', Buffer.from(canonicalSignedInfo, 'utf8'), parts.certificate.publicKey, signature)) {
    problems.push({ code: 'signature_mismatch', message: 'The SignatureValue does not verify with the certificate in KeyInfo.' });
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
  for (let ancestor = element.parentNode; ancestor !== null && ancestor.nodeType === 1; ancestor = ancestor.parentNode) {
    for (const attribute of Array.from((ancestor as Element).attributes)) {
      if (attribute.name !== 'xmlns' && !attribute.name.startsWith('xmlns:')) continue;
      const prefix = attribute.name.slice(6);
      if (!seen.has(prefix)) seen.set(prefix, attribute.value);
    }
  }
  return [...seen].filter(([prefix, uri]) => uri !== '' && !own.has(prefix)).map(([prefix, namespaceURI]) => ({ prefix, namespaceURI }));
}

function success(parts: SignatureParts, verifiedForm: 'as-is' | 'whitespace-stripped'): VerificationResult {
  return { ok: true, certificatePem: parts.certificate.toString(), signatureValue: parts.signatureValue, securityCode: securityCode(parts.signatureValue), verifiedForm };
}

function refuse(code: VerificationProblem['code'], message: string): VerificationResult {
  return { ok: false, problems: [{ code, message }] };
}
