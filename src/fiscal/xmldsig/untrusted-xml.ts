// Parsing XML that comes from outside (DGII seeds, e-CF and responses from other parties). Markup declarations are
// refused before any parser sees the text, which rules out XXE and entity expansion ("billion laughs") whatever the
// parser would do with them; the size is bounded first so the scan itself is bounded.
import { DOMParser } from '@xmldom/xmldom';

export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;

export type ParseProblemCode = 'input_empty' | 'input_too_large' | 'input_not_utf8' | 'encoding_unsupported' | 'doctype_forbidden' | 'xml_malformed';
export interface ParseProblem {
  code: ParseProblemCode;
  message: string;
}
export type ParseResult = { ok: true; document: Document; root: Element } | { ok: false; problem: ParseProblem };

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const BOM = '\uFEFF';
// `<!` that opens anything but a comment or a CDATA section: DOCTYPE, ENTITY, ELEMENT, ATTLIST, NOTATION.
const MARKUP_DECLARATION = /<!(?!--|\[CDATA\[)/;
const DECLARED_ENCODING = /^<\?xml[^>]*\bencoding\s*=\s*["']([^"']*)["']/;

export function parseUntrustedXml(input: string | Buffer, maxBytes: number = DEFAULT_MAX_BYTES): ParseResult {
  const size = typeof input === 'string' ? Buffer.byteLength(input, 'utf8') : input.length;
  if (size > maxBytes) return failure('input_too_large', `The XML is ${size} bytes; at most ${maxBytes} are accepted.`);
  const decoded = typeof input === 'string' ? input : decodeUtf8(input);
  if (decoded === undefined) return failure('input_not_utf8', 'The XML bytes are not valid UTF-8.');
  const text = decoded.startsWith(BOM) ? decoded.slice(1) : decoded;
  if (text.trim() === '') return failure('input_empty', 'The XML is empty.');
  if (MARKUP_DECLARATION.test(text)) {
    return failure('doctype_forbidden', 'The XML contains a DOCTYPE or other markup declaration; DTDs and entities are refused.');
  }
  const encoding = DECLARED_ENCODING.exec(text)?.[1];
  if (typeof input !== 'string' && encoding !== undefined && !/^utf-?8$/i.test(encoding)) {
    return failure('encoding_unsupported', `The XML declares encoding "${encoding}"; only UTF-8 is accepted.`);
  }
  return parseWellFormed(text);
}

/** Removes whitespace-only text nodes everywhere, as a PreserveWhitespace = false parser does (Firmado de e-CF). */
export function removeWhitespaceOnlyText(node: Node): void {
  for (let child = node.firstChild; child !== null; ) {
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
    document = new DOMParser({ errorHandler: { warning: record, error: record, fatalError: record } }).parseFromString(text, 'text/xml');
  } catch (error) {
    return failure('xml_malformed', `The XML is not well-formed: ${error instanceof Error ? error.message : String(error)}`);
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

function decodeUtf8(bytes: Buffer): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function failure(code: ParseProblemCode, message: string): ParseResult {
  return { ok: false, problem: { code, message } };
}
