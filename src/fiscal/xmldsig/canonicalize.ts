// Canonical form for XML we did not write. The canonicalizer is xml-crypto's inclusive C14N 1.0 over @xmldom/xmldom:
// it is the implementation research checked against xmlsec1 in both directions (research/stack.md §1), it is
// already a dependency, and the verifier uses the same one, so signer and verifier cannot disagree about C14N.
// A home-grown C14N would be one more thing to get exactly right for no gain: this path is not the fast one.
import { C14nCanonicalization } from 'xml-crypto';
import { XML_DECLARATION, XMLDSIG_NAMESPACE } from './profile.js';
import { parseUntrustedXml, removeWhitespaceOnlyText } from './parse-untrusted-xml.js';
import type { ParseProblemCode } from './parse-untrusted-xml.js';

export type XmlInputErrorCode = ParseProblemCode | 'already_signed' | 'xml_unprocessable';

export class XmlInputError extends Error {
  override readonly name = 'XmlInputError';
  constructor(
    readonly code: XmlInputErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const PROCESSING_INSTRUCTION_NODE = 7;

/**
 * The canonical document (contract in canonical-form.ts) for any XML: BOM and whitespace-only text nodes removed
 * (DGII signs and verifies with PreserveWhitespace = false: Firmado de e-CF), comments dropped (C14N without
 * comments does not sign them), the root in C14N 1.0 form, the standard declaration kept when the input had one.
 * A writer's tests can assert toCanonicalDocument(x) === x. Throws XmlInputError for XML it refuses.
 */
export function toCanonicalDocument(xml: string): string {
  const parsed = parseUntrustedXml(xml);
  if (!parsed.ok) throw new XmlInputError(parsed.problem.code, parsed.problem.message);
  let hasDeclaration = false;
  for (let node = parsed.document.firstChild; node !== null; node = node.nextSibling) {
    // The only processing instruction the screen lets through (fiscal/xml/xml-shape.ts): any other, outside the root,
    // would be part of what URI="" signs for xmlsec1 but not for xml-crypto.
    if (node.nodeType === PROCESSING_INSTRUCTION_NODE && node.nodeName === 'xml') hasDeclaration = true;
  }
  if (parsed.root.getElementsByTagNameNS(XMLDSIG_NAMESPACE, 'Signature').length > 0 || isSignature(parsed.root)) {
    throw new XmlInputError('already_signed', 'The XML already contains an XMLDSig Signature.');
  }
  let canonicalRoot: string;
  try {
    removeWhitespaceOnlyText(parsed.root);
    canonicalRoot = new C14nCanonicalization().process(parsed.root, {});
  } catch (error) {
    // Both walks recurse: nesting deep enough to exhaust the stack lands here.
    throw new XmlInputError(
      'xml_unprocessable',
      `The XML could not be canonicalized: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return hasDeclaration ? XML_DECLARATION + canonicalRoot : canonicalRoot;
}

function isSignature(element: Element): boolean {
  return element.namespaceURI === XMLDSIG_NAMESPACE && element.localName === 'Signature';
}
