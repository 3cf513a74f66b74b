// The one screen for XML from outside (e-CF from other issuers, DGII's seed and answers, uploads): what no parser
// here may ever see. e-CF and DGII's messages have no use for a DTD, so any markup declaration (`<!DOCTYPE`,
// `<!ENTITY`, ...) is refused outright, which rules out XXE and entity expansion ("billion laughs") whatever a
// parser would do; the size is bounded first, so the scan is bounded too; only UTF-8 is read; and a character XML
// does not allow (NUL and the other C0 controls but tab, LF and CR; U+FFFE, U+FFFF; a lone surrogate) is refused,
// as XML 1.0 §2.2 refuses it: nothing downstream has to fear one (PostgreSQL refuses NUL in text). Last, one linear
// pass refuses the shapes that would make a parser here quadratic or recursive (xml-shape.ts).
import { xmlShapeProblem, type XmlShapeKind } from './xml-shape.js';

export const maxUntrustedXmlBytes = 5 * 1024 * 1024;

export type UntrustedXmlProblem =
  | 'too_large'
  | 'not_utf8'
  | 'encoding_unsupported'
  | 'empty'
  | 'markup_declaration'
  | 'forbidden_character'
  | 'shape_not_allowed'
  | 'not_well_formed';

export type ScreenedXml =
  | { ok: true; text: string }
  | { ok: false; problem: UntrustedXmlProblem; message: string; line?: number; shape?: XmlShapeKind };

const BOM = '\uFEFF';
// `<!` that opens anything but a comment or a CDATA section.
const markupDeclaration = /<!(?!--|\[CDATA\[)/;
const declaredEncoding = /^<\?xml[^>]*\bencoding\s*=\s*["']([^"']*)["']/;
// eslint-disable-next-line no-control-regex -- control characters are exactly what this pattern must find
const suspectCharacter = /[\x00-\x08\x0B\x0C\x0E-\x1F\uD800-\uDFFF\uFFFE\uFFFF]/g;

/** The index of the first character XML 1.0 does not allow (a surrogate is allowed in a pair), or -1. */
function forbiddenCharacterAt(text: string): number {
  suspectCharacter.lastIndex = 0;
  for (let found = suspectCharacter.exec(text); found !== null; found = suspectCharacter.exec(text)) {
    const at = found.index;
    const code = text.charCodeAt(at);
    const pairedHigh = code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(at + 1) & 0xfc00) === 0xdc00;
    if (!pairedHigh) return at;
    suspectCharacter.lastIndex = at + 2;
  }
  return -1;
}

/** Whether `codePoint` is an XML 1.0 Char (§2.2): what a character reference may name. */
export function isXmlCharacter(codePoint: number): boolean {
  return (
    codePoint === 0x9 ||
    codePoint === 0xa ||
    codePoint === 0xd ||
    (codePoint >= 0x20 && codePoint <= 0xd7ff) ||
    (codePoint >= 0xe000 && codePoint <= 0xfffd) ||
    (codePoint >= 0x10000 && codePoint <= 0x10ffff)
  );
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** The text to parse (BOM removed), or why it must not be parsed at all. */
export function screenUntrustedXml(input: string | Uint8Array, maxBytes: number = maxUntrustedXmlBytes): ScreenedXml {
  // A string longer than the bound encodes to more bytes than it: refuse before measuring.
  const size =
    typeof input === 'string'
      ? input.length > maxBytes
        ? input.length
        : Buffer.byteLength(input, 'utf8')
      : input.byteLength;
  if (size > maxBytes)
    return { ok: false, problem: 'too_large', message: `The XML is ${size} bytes; at most ${maxBytes} are accepted.` };
  let decoded: string;
  if (typeof input === 'string') {
    decoded = input;
  } else {
    try {
      decoded = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(input);
    } catch {
      return { ok: false, problem: 'not_utf8', message: 'The XML bytes are not valid UTF-8.' };
    }
  }
  const text = decoded.startsWith(BOM) ? decoded.slice(1) : decoded;
  if (text.trim() === '') return { ok: false, problem: 'empty', message: 'The XML is empty.' };
  const declaration = markupDeclaration.exec(text);
  if (declaration !== null) {
    return {
      ok: false,
      problem: 'markup_declaration',
      message: 'A DOCTYPE or other markup declaration is not allowed (DTDs and entities are refused).',
      line: lineAt(text, declaration.index),
    };
  }
  const forbidden = forbiddenCharacterAt(text);
  if (forbidden !== -1) {
    const code = (text.codePointAt(forbidden) ?? 0).toString(16).toUpperCase().padStart(4, '0');
    return {
      ok: false,
      problem: 'forbidden_character',
      message: `The XML holds U+${code}, a character XML does not allow.`,
      line: lineAt(text, forbidden),
    };
  }
  const encoding = declaredEncoding.exec(text)?.[1];
  if (typeof input !== 'string' && encoding !== undefined && !/^utf-?8$/i.test(encoding)) {
    return {
      ok: false,
      problem: 'encoding_unsupported',
      message: `The XML declares encoding "${encoding}"; only UTF-8 is accepted.`,
    };
  }
  const shape = xmlShapeProblem(text);
  if (shape !== undefined)
    return {
      ok: false,
      problem: shape.kind === 'malformed' ? 'not_well_formed' : 'shape_not_allowed',
      shape: shape.kind,
      message: shape.message,
      line: lineAt(text, shape.index),
    };
  return { ok: true, text };
}

/** The finding code the document readers (parse-ecf, parse-xml-tree, semilla) give a screen's refusal. */
export function screenFindingCode(
  problem: UntrustedXmlProblem,
): 'doctype_not_allowed' | 'too_large' | 'shape_not_allowed' | 'malformed_xml' {
  switch (problem) {
    case 'markup_declaration':
      return 'doctype_not_allowed';
    case 'too_large':
    case 'shape_not_allowed':
      return problem;
    case 'not_utf8':
    case 'encoding_unsupported':
    case 'empty':
    case 'forbidden_character':
    case 'not_well_formed':
      return 'malformed_xml';
  }
}
