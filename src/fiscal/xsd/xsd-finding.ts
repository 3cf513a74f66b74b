import type { ErrorDetail } from 'libxml2-wasm';

export type XsdFindingCode = 'xsd_invalid' | 'xml_malformed' | 'xml_forbidden';

export interface XsdFinding {
  /** XPath-like location, e.g. /ECF/Encabezado/IdDoc/TipoeCF; `/` for the document as a whole. */
  path: string;
  line: number | undefined;
  code: XsdFindingCode;
  message: string;
}

export function documentFinding(code: XsdFindingCode, message: string, line?: number): XsdFinding {
  return { path: '/', line, code, message };
}

export function findingFromDetail(code: XsdFindingCode, detail: ErrorDetail): XsdFinding {
  return {
    path: detail.xpath !== undefined && detail.xpath !== '' ? detail.xpath : '/',
    line: detail.line > 0 ? detail.line : undefined,
    code,
    message: cleanMessage(detail.message),
  };
}

// An enumeration of municipalities or currencies is listed whole by libxml2: hundreds of values.
const longestSet = 8;

/**
 * libxml2's message without its noise: the trailing newline, `[facet '…']` tags (the sentence says the same),
 * `{namespace}` prefixes on names (DGII's documents have no namespace but the signature's) and the tail of long
 * value sets. What is wrong and which element stay.
 */
export function cleanMessage(message: string): string {
  return message
    .replace(/\[facet '[^']*'\]\s*/g, '')
    .replace(/'\{http:\/\/www\.w3\.org\/2001\/XMLSchema\}([^']*)'/g, "'xs:$1'")
    .replace(/\{[^{}\s']*\}(?=[\w.-]+')/g, '')
    .replace(/\{('[^']*'(?:, '[^']*')*)\}/g, (_whole: string, list: string) => `{${shortenSet(list)}}`)
    .replace(/\s+/g, ' ')
    .trim();
}

function shortenSet(list: string): string {
  const values = list.split(', ');
  if (values.length <= longestSet) return list;
  return `${values.slice(0, longestSet).join(', ')}, … (${values.length} values)`;
}
