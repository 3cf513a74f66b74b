// Parsing XML that comes from outside (DGII seeds, e-CF and responses from other parties) into a DOM, after the
// one screen for untrusted XML (fiscal/xml/screen-untrusted-xml.ts) has refused what no parser may see.
import { DOMParser } from '@xmldom/xmldom';
import { maxUntrustedXmlBytes, screenUntrustedXml, type UntrustedXmlProblem } from '../xml/screen-untrusted-xml.js';

export const DEFAULT_MAX_BYTES = maxUntrustedXmlBytes;

export type ParseProblemCode =
  | 'input_empty'
  | 'input_too_large'
  | 'input_not_utf8'
  | 'encoding_unsupported'
  | 'doctype_forbidden'
  | 'processing_instruction_forbidden'
  | 'xml_shape_forbidden'
  | 'xml_malformed';
export interface ParseProblem {
  code: ParseProblemCode;
  message: string;
}
export type ParseResult = { ok: true; document: Document; root: Element } | { ok: false; problem: ParseProblem };

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;

const screenCodes: Record<UntrustedXmlProblem, ParseProblemCode> = {
  too_large: 'input_too_large',
  not_utf8: 'input_not_utf8',
  encoding_unsupported: 'encoding_unsupported',
  empty: 'input_empty',
  markup_declaration: 'doctype_forbidden',
  forbidden_character: 'xml_malformed',
  shape_not_allowed: 'xml_shape_forbidden',
  not_well_formed: 'xml_malformed',
};

export function parseUntrustedXml(input: string | Buffer, maxBytes: number = DEFAULT_MAX_BYTES): ParseResult {
  const screened = screenUntrustedXml(input, maxBytes);
  // A processing instruction keeps its own code: URI="" covers one outside the root for xmlsec1 but not for
  // xml-crypto, so signing and verifying refuse it rather than pick a meaning.
  if (!screened.ok)
    return failure(
      screened.shape === 'processing_instruction' ? 'processing_instruction_forbidden' : screenCodes[screened.problem],
      screened.message,
    );
  return parseWellFormed(screened.text);
}

/** Parses text that already passed screenUntrustedXml (or is built only of such text). */
export function parseScreenedXml(text: string): ParseResult {
  return parseWellFormed(text);
}

/** Removes whitespace-only text nodes everywhere, as a PreserveWhitespace = false parser does (Firmado de e-CF). */
export function removeWhitespaceOnlyText(node: Node): void {
  for (let child = node.firstChild; child !== null;) {
    const next = child.nextSibling;
    if (child.nodeType === TEXT_NODE && /^[ \t\r\n]*$/.test(child.nodeValue ?? '')) node.removeChild(child);
    else if (child.nodeType === ELEMENT_NODE) removeWhitespaceOnlyText(child);
    child = next;
  }
}

export function elementChildren(node: Node): Element[] {
  const elements: Element[] = [];
  for (let child = node.firstChild; child !== null; child = child.nextSibling) {
    if (isElement(child)) elements.push(child);
  }
  return elements;
}

export function isElement(node: Node): node is Element {
  return node.nodeType === ELEMENT_NODE;
}

function parseWellFormed(text: string): ParseResult {
  const errors: string[] = [];
  const record = (message: unknown) => errors.push(String(message));
  let document: Document;
  try {
    document = new DOMParser({ errorHandler: { warning: record, error: record, fatalError: record } }).parseFromString(
      text,
      'text/xml',
    );
  } catch (error) {
    return failure(
      'xml_malformed',
      `The XML is not well-formed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const root = document.documentElement as Element | null;
  if (errors.length > 0 || root === null) {
    return failure('xml_malformed', `The XML is not well-formed: ${errors[0]?.split('\n')[0] ?? 'no root element'}`);
  }
  for (let node = document.firstChild; node !== null; node = node.nextSibling) {
    if (node.nodeType === TEXT_NODE && (node.nodeValue ?? '').trim() !== '') {
      return failure('xml_malformed', 'The XML has text outside its root element.');
    }
  }
  return { ok: true, document, root };
}

function failure(code: ParseProblemCode, message: string): ParseResult {
  return { ok: false, problem: { code, message } };
}
