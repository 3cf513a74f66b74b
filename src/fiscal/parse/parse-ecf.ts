// A signed (or unsigned) e-CF back into the DGII-shaped JSON model: element names as keys, arrays exactly where
// the model says an element repeats, every value the element's text as a string, the Signature dropped.
// parseEcf(buildEcf(json).xml) gives back the document buildEcf wrote.
import { screenUntrustedXml } from '../xml/untrusted-xml.js';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
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

/** XML 1.0 §2.11 line ends, then §4.6 predefined entities and character references; undefined if another entity. */
export function decodeXmlText(raw: string): string | undefined {
  const unknown: string[] = [];
  const text = raw.replace(/\r\n?/g, '\n').replace(/&(#x[0-9A-Fa-f]+|#\d+|\w+);/g, (whole, ref: string) => {
    if (ref.startsWith('#x')) return String.fromCodePoint(Number.parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(Number.parseInt(ref.slice(1), 10));
    const value = Object.hasOwn(predefined, ref) ? predefined[ref] : undefined;
    if (value === undefined) unknown.push(ref);
    return value ?? whole;
  });
  return unknown.length > 0 ? undefined : text;
}

export function parseEcf(input: string): ParseResult {
  const screened = screenUntrustedXml(input);
  if (!screened.ok) return failed('/', screened.problem === 'markup_declaration' ? 'doctype_not_allowed' : screened.problem === 'too_large' ? 'too_large' : 'malformed_xml', screened.message);
  const xml = screened.text;
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- its successor, fast-xml-validator, is not a dependency
  const valid = XMLValidator.validate(xml);
  if (valid !== true) return failed('/', 'malformed_xml', `not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  const root = (parser.parse(xml) as Node)['ECF'];
  if (!isNode(root)) return failed('/', 'not_an_ecf', 'the root element must be ECF');
  const type = typeOf(root);
  if (!isEcfType(type)) return failed('/ECF/Encabezado/IdDoc/TipoeCF', 'unknown_type', 'TipoeCF is missing or not an e-CF type');
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

function readGroup(model: readonly EcfElement[], node: Node, at: string, findings: Finding[], isRoot = false): EcfObject {
  const known = new Map(model.map((element) => [element.name, element]));
  const out: Record<string, EcfValue> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '#comment') continue;
    if (key === '#text') {
      if (typeof value === 'string' && value.trim() !== '') findings.push(error(at, 'unexpected_text', 'text between elements'));
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
    if (!element.repeated && occurrences.length > 1) findings.push(error(`${at}/${key}`, 'repeated_element', `${key} occurs only once`));
    const read = occurrences.map((occurrence, index) => readElement(element, occurrence, element.repeated ? `${at}/${key}[${index + 1}]` : `${at}/${key}`, findings));
    if (element.repeated) out[key] = element.children === undefined ? (read as string[]) : (read as EcfObject[]);
    else if (read[0] !== undefined) out[key] = read[0];
  }
  // Keys in XSD order, whatever order the XML had (the XSD check reports a wrong order).
  return Object.fromEntries(model.filter((e) => e.name in out).map((e) => [e.name, out[e.name] as EcfValue]));
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
    findings.push(error(at, 'unknown_entity', `${element.name} refers to an entity XML does not predefine`));
    return '';
  }
  return text;
}
