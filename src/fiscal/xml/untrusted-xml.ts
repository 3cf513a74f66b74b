// The one screen for XML from outside (e-CF from other issuers, DGII's seed and answers, uploads): what no parser
// here may ever see. e-CF and DGII's messages have no use for a DTD, so any markup declaration (`<!DOCTYPE`,
// `<!ENTITY`, ...) is refused outright, which rules out XXE and entity expansion ("billion laughs") whatever a
// parser would do; the size is bounded first, so the scan is bounded too; only UTF-8 is read.

export const maxUntrustedXmlBytes = 5 * 1024 * 1024;

export type UntrustedXmlProblem = 'too_large' | 'not_utf8' | 'encoding_unsupported' | 'empty' | 'markup_declaration';

export type ScreenedXml =
  | { ok: true; text: string }
  | { ok: false; problem: UntrustedXmlProblem; message: string; line?: number };

const BOM = '\uFEFF';
// `<!` that opens anything but a comment or a CDATA section.
const markupDeclaration = /<!(?!--|\[CDATA\[)/;
const declaredEncoding = /^<\?xml[^>]*\bencoding\s*=\s*["']([^"']*)["']/;

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** The text to parse (BOM removed), or why it must not be parsed at all. */
export function screenUntrustedXml(input: string | Uint8Array, maxBytes: number = maxUntrustedXmlBytes): ScreenedXml {
  // A string longer than the bound encodes to more bytes than it: refuse before measuring.
  const size = typeof input === 'string' ? (input.length > maxBytes ? input.length : Buffer.byteLength(input, 'utf8')) : input.byteLength;
  if (size > maxBytes) return { ok: false, problem: 'too_large', message: `The XML is ${size} bytes; at most ${maxBytes} are accepted.` };
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
    return { ok: false, problem: 'markup_declaration', message: 'A DOCTYPE or other markup declaration is not allowed (DTDs and entities are refused).', line: lineAt(text, declaration.index) };
  }
  const encoding = declaredEncoding.exec(text)?.[1];
  if (typeof input !== 'string' && encoding !== undefined && !/^utf-?8$/i.test(encoding)) {
    return { ok: false, problem: 'encoding_unsupported', message: `The XML declares encoding "${encoding}"; only UTF-8 is accepted.` };
  }
  return { ok: true, text };
}
