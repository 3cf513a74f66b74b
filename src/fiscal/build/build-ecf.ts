// JSON in, XML out: a client's DGII-shaped document plus the fields the service owns, written as compact UTF-8
// XML in XSD order by the one writer (escaping once, no empty element). Root `<ECF>` without namespace
// declarations, as in DGII's signed e-CF samples (the XSDs have no target namespace).
import { error } from '../finding.js';
import type { Finding } from '../finding.js';
import type { EcfElement } from '../model/ecf-model-types.js';
import { ecfModel } from '../model/ecf-model.js';
import { writeXmlDocument } from '../xml/xml-writer.js';
import type { XmlElement } from '../xml/xml-writer.js';
import type { EcfJson, EcfObject, ServiceOwnedFields } from './ecf-json.js';
import { readEcfDocument } from './read-document.js';
import { declaredType, documentType } from './validate-structure.js';

export type BuildResult =
  | { ok: true; xml: string; /** The document as written: normalised values plus the owned fields. */ document: EcfObject; warnings: Finding[] }
  | { ok: false; findings: Finding[] };

export function buildEcf(document: EcfJson, owned: ServiceOwnedFields): BuildResult {
  const type = documentType(document);
  if (type === undefined) {
    const declared = declaredType(document);
    const message = declared === undefined ? 'TipoeCF is mandatory' : `TipoeCF ${declared} is not an e-CF type`;
    return { ok: false, findings: [error('/Encabezado/IdDoc/TipoeCF', declared === undefined ? 'missing' : 'not_in_catalogue', message)] };
  }
  const read = readEcfDocument(type, document, owned);
  if (read.findings.some((f) => f.severity === 'error')) return { ok: false, findings: read.findings };
  const root: XmlElement = { name: 'ECF', content: elementsOf(ecfModel(type).children, read.document) };
  return { ok: true, xml: writeXmlDocument(root), document: read.document, warnings: read.findings };
}

function elementsOf(model: readonly EcfElement[], values: EcfObject): XmlElement[] {
  // A plain loop: most model elements are absent from a given document, and this runs for every line.
  const elements: XmlElement[] = [];
  for (const element of model) {
    const value = values[element.name];
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const occurrence of value as readonly (string | EcfObject)[]) elements.push(elementOf(element, occurrence));
    else elements.push(elementOf(element, value as string | EcfObject));
  }
  return elements;
}

function elementOf(element: EcfElement, value: string | EcfObject): XmlElement {
  if (typeof value === 'string') return { name: element.name, content: value };
  return { name: element.name, content: elementsOf(element.children ?? [], value) };
}

