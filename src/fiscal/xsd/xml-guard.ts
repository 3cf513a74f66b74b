import { maxUntrustedXmlBytes, screenUntrustedXml } from '../xml/screen-untrusted-xml.js';
import { documentFinding, type XsdFinding } from './xsd-finding.js';

export const defaultMaxXmlBytes = maxUntrustedXmlBytes;

export type GuardedXml = { ok: true; bytes: Uint8Array } | { ok: false; finding: XsdFinding };

/**
 * What libxml2 must never see, by the one screen for untrusted XML: a document over the size bound, or one with
 * a DTD or other markup declaration. The text is handed to libxml2 as UTF-8 bytes, and the parser is told so.
 */
export function guardXml(xml: string | Uint8Array, maxBytes: number): GuardedXml {
  const screened = screenUntrustedXml(xml, maxBytes);
  if (screened.ok) {
    // Bytes that passed the screen are already the UTF-8 of its text (past a BOM): no need to encode it again.
    if (typeof xml !== 'string') return { ok: true, bytes: hasBom(xml) ? xml.subarray(3) : xml };
    return { ok: true, bytes: new TextEncoder().encode(screened.text) };
  }
  const refused = screened.problem === 'too_large' || screened.problem === 'markup_declaration';
  return {
    ok: false,
    finding: documentFinding(refused ? 'xml_forbidden' : 'xml_malformed', screened.message, screened.line),
  };
}

function hasBom(bytes: Uint8Array): boolean {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}
