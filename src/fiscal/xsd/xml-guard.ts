import { documentFinding, type XsdFinding } from './xsd-finding.js';

export const defaultMaxXmlBytes = 5 * 1024 * 1024;

export type GuardedXml = { ok: true; bytes: Uint8Array } | { ok: false; finding: XsdFinding };

/**
 * What libxml2 must never see: a document over the size bound, or one with a DOCTYPE. e-CF documents have no use
 * for a DTD, and refusing it removes entity expansion (XXE, billion laughs) and external DTD loading at the root.
 * Bytes are always parsed as UTF-8 (the parser is told so), so this ASCII scan cannot be dodged by declaring
 * UTF-16 or another encoding.
 */
export function guardXml(xml: string | Uint8Array, maxBytes: number): GuardedXml {
  // Any string longer than the bound also encodes to more bytes than it: refuse before encoding.
  if (typeof xml === 'string' && xml.length > maxBytes) return tooLarge(maxBytes);
  const bytes = typeof xml === 'string' ? new TextEncoder().encode(xml) : xml;
  if (bytes.byteLength > maxBytes) return tooLarge(maxBytes);
  const doctype = findDoctype(bytes);
  if (doctype !== -1) {
    return { ok: false, finding: documentFinding('xml_forbidden', 'A DOCTYPE declaration is not allowed (DTDs and entities are refused).', lineOf(bytes, doctype)) };
  }
  return { ok: true, bytes };
}

function tooLarge(maxBytes: number): GuardedXml {
  return { ok: false, finding: documentFinding('xml_forbidden', `The document is larger than ${maxBytes} bytes.`) };
}

const doctypeTail = [0x44, 0x4f, 0x43, 0x54, 0x59, 0x50, 0x45]; // DOCTYPE

/** Offset of `<!DOCTYPE` (any case), or -1. Anywhere in the document, comments included: never legitimate here. */
function findDoctype(bytes: Uint8Array): number {
  // Seek `!` rather than `<`: it is rare in e-CF text, so a 200-line invoice costs a handful of checks.
  for (let i = bytes.indexOf(0x21, 1); i !== -1; i = bytes.indexOf(0x21, i + 1)) {
    if (bytes[i - 1] !== 0x3c) continue;
    if (doctypeTail.every((upper, k) => ((bytes[i + 1 + k] ?? 0) & 0xdf) === upper)) return i - 1;
  }
  return -1;
}

function lineOf(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = bytes.indexOf(0x0a); i !== -1 && i < offset; i = bytes.indexOf(0x0a, i + 1)) line++;
  return line;
}
