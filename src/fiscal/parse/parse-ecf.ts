// A signed (or unsigned) e-CF back into the DGII-shaped JSON model: element names as keys, arrays exactly where
// the model says an element repeats, every value the element's text as a string, the Signature dropped.
// parseEcf(buildEcf(json).xml) gives back the document buildEcf wrote.
import { scanCompactXml, type CompactXml } from '../xml/compact-xml.js';
import { isXmlCharacter, screenFindingCode, screenUntrustedXml } from '../xml/screen-untrusted-xml.js';
import { XMLParser } from 'fast-xml-parser';
import { parseGeneralXml } from '../xml/general-xml.js';
import type { EcfObject, EcfValue } from '../build/ecf-json.js';
import { error } from '../finding.js';
import type { Finding } from '../finding.js';
import type { EcfElement } from '../model/ecf-model-types.js';
import { ecfModel, isEcfType } from '../model/ecf-model.js';

export type ParseResult = { ok: true; document: EcfObject } | { ok: false; findings: Finding[] };

// No DOCTYPE is accepted and entities are decoded here (only XML's predefined ones and character references),
// so the parser never expands anything a sender defined.
const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  processEntities: false,
  trimValues: false,
  cdataPropName: '#cdata',
  commentPropName: '#comment',
});

type Node = Readonly<Record<string, unknown>>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const predefined: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/**
 * XML 1.0 §2.11 line ends, then §4.6 predefined entities and character references; undefined if another entity, or
 * a reference to a character XML does not allow (§2.2: &#0;, a lone surrogate, past U+10FFFF).
 */
export function decodeXmlText(raw: string): string | undefined {
  // Most values hold neither: no copy, no regex.
  if (!raw.includes('&') && !raw.includes('\r')) return raw;
  const unknown: string[] = [];
  const text = raw.replace(/\r\n?/g, '\n').replace(/&(#x[0-9A-Fa-f]+|#\d+|\w+);/g, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const codePoint = ref.startsWith('#x') ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
      if (isXmlCharacter(codePoint)) return String.fromCodePoint(codePoint);
      unknown.push(ref);
      return whole;
    }
    const value = Object.hasOwn(predefined, ref) ? predefined[ref] : undefined;
    if (value === undefined) unknown.push(ref);
    return value ?? whole;
  });
  return unknown.length > 0 ? undefined : text;
}

export function parseEcf(input: string): ParseResult {
  const screened = screenUntrustedXml(input);
  if (!screened.ok) return failed('/', screenFindingCode(screened.problem), screened.message);
  const xml = screened.text;
  // The compact form (every e-CF we and DGII's signers write) is read in one pass into the shape fast-xml-parser
  // gives; validating and parsing with fast-xml-parser cost several times more. Anything else takes that parser.
  const compact = scanCompactXml(xml);
  const read = compact === undefined ? undefined : parseCompactEcf(compact);
  if (read !== undefined) return read;
  const general = parseGeneralXml(parser, xml);
  if (!general.ok) return failed('/', 'malformed_xml', general.message);
  const root = general.document['ECF'];
  if (!isNode(root)) return failed('/', 'not_an_ecf', 'the root element must be ECF');
  return readEcfRoot(root);
}

/** parseEcf's answer for a document already scanned compact (its screened text), or undefined: parse it then. */
export function parseCompactEcf(compact: CompactXml): ParseResult | undefined {
  return compact.rootName === 'ECF' ? readEcfRoot(compact.content) : undefined;
}

function readEcfRoot(root: Node): ParseResult {
  const type = typeOf(root);
  if (!isEcfType(type))
    return failed('/ECF/Encabezado/IdDoc/TipoeCF', 'unknown_type', 'TipoeCF is missing or not an e-CF type');
  const findings: Finding[] = [];
  const document = readGroup(ecfModel(type).children, root, '/ECF', findings, true);
  return findings.length > 0 ? { ok: false, findings } : { ok: true, document };
}

function failed(pointer: string, code: string, message: string): ParseResult {
  return { ok: false, findings: [error(pointer, code, message)] };
}

function typeOf(root: Node): unknown {
  const header = root['Encabezado'];
  const idDoc = isNode(header) ? header['IdDoc'] : undefined;
  return isNode(idDoc) ? idDoc['TipoeCF'] : undefined;
}

/** Each model group's elements by name, made once (the model is static). */
const elementsByName = new WeakMap<readonly EcfElement[], ReadonlyMap<string, EcfElement>>();

function knownElements(model: readonly EcfElement[]): ReadonlyMap<string, EcfElement> {
  let known = elementsByName.get(model);
  if (known === undefined) {
    known = new Map(model.map((element) => [element.name, element]));
    elementsByName.set(model, known);
  }
  return known;
}

function readGroup(
  model: readonly EcfElement[],
  node: Node,
  at: string,
  findings: Finding[],
  isRoot = false,
): EcfObject {
  const known = knownElements(model);
  const out: Record<string, EcfValue> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '#comment') continue;
    if (key === '#text') {
      if (typeof value === 'string' && value.trim() !== '')
        findings.push(error(at, 'unexpected_text', 'text between elements'));
      continue;
    }
    // XMLDSig Signature: the xs:any slot after FechaHoraFirma; not part of the model.
    if (isRoot && key === 'Signature') continue;
    const element = known.get(key);
    if (element === undefined) {
      findings.push(error(`${at}/${key}`, 'unknown_element', `${key} is not an element here`));
      continue;
    }
    const occurrences = Array.isArray(value) ? (value as unknown[]) : [value];
    if (!element.repeated && occurrences.length > 1)
      findings.push(error(`${at}/${key}`, 'repeated_element', `${key} occurs only once`));
    const read = occurrences.map((occurrence, index) =>
      readElement(element, occurrence, element.repeated ? `${at}/${key}[${index + 1}]` : `${at}/${key}`, findings),
    );
    if (element.repeated) out[key] = element.children === undefined ? (read as string[]) : (read as EcfObject[]);
    else if (read[0] !== undefined) out[key] = read[0];
  }
  // Keys in XSD order, whatever order the XML had (the XSD check reports a wrong order).
  const ordered: Record<string, EcfValue> = {};
  for (const { name } of model) if (Object.hasOwn(out, name)) ordered[name] = out[name] as EcfValue;
  return ordered;
}

function readElement(element: EcfElement, value: unknown, at: string, findings: Finding[]): string | EcfObject {
  if (element.children !== undefined) {
    if (!isNode(value)) {
      findings.push(error(at, 'wrong_content', `${element.name} must contain elements`));
      return {};
    }
    return readGroup(element.children, value, at, findings);
  }
  if (typeof value !== 'string') {
    findings.push(error(at, 'wrong_content', `${element.name} must contain text only`));
    return '';
  }
  if (value === '') findings.push(error(at, 'empty_element', `${element.name} is empty; DGII rejects empty elements`));
  const text = decodeXmlText(value);
  if (text === undefined) {
    findings.push(
      error(
        at,
        'unknown_entity',
        `${element.name} refers to an entity XML does not predefine, or to a character XML does not allow`,
      ),
    );
    return '';
  }
  return text;
}
