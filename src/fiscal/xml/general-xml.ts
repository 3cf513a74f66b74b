// Screened XML outside the compact form (fiscal/xml/compact-xml.ts), read by fast-xml-parser: checked well-formed
// first (the parser itself reads broken markup without complaint), and an element name the parser refuses to make a
// property of (`__proto__`, `constructor`, `prototype`: it throws) refused like any other unreadable document.
import { XMLValidator, type XMLParser } from 'fast-xml-parser';

export type GeneralXml = { ok: true; document: Readonly<Record<string, unknown>> } | { ok: false; message: string };

export function parseGeneralXml(parser: XMLParser, screenedText: string): GeneralXml {
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- its successor, fast-xml-validator, is not a dependency
  const valid = XMLValidator.validate(screenedText);
  if (valid !== true) return { ok: false, message: `not well-formed XML: ${valid.err.msg} (line ${valid.err.line})` };
  try {
    return { ok: true, document: parser.parse(screenedText) as Readonly<Record<string, unknown>> };
  } catch (error) {
    return { ok: false, message: `unreadable XML: ${error instanceof Error ? error.message : String(error)}` };
  }
}
