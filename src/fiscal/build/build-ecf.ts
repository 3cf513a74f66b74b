// JSON in, XML out: a client's DGII-shaped document plus the fields the service owns, written as compact UTF-8
// canonical XML in XSD order while it is read (read-ecf-document.ts: escaping once, no empty element). Root `<ECF>`
// without namespace declarations, as in DGII's signed e-CF samples (the XSDs have no target namespace).
import { error } from '../finding.js';
import type { Finding } from '../finding.js';
import { xmlDeclaration } from '../xml/xml-writer.js';
import type { EcfJson, EcfObject, ServiceOwnedFields } from './ecf-json.js';
import { readEcfDocument, type ReadDocument } from './read-ecf-document.js';
import { declaredType, documentType } from './validate-structure.js';

export type BuildResult = { ok: true; xml: string; warnings: Finding[] } | { ok: false; findings: Finding[] };

export type NormaliseResult =
  | { ok: true; /** Normalised values plus the owned fields. */ document: EcfObject; warnings: Finding[] }
  | { ok: false; findings: Finding[] };

export function buildEcf(document: EcfJson, owned: ServiceOwnedFields): BuildResult {
  const read = readForBuild(document, owned, false);
  if (!read.ok) return read;
  return { ok: true, xml: `${xmlDeclaration}<ECF>${read.xml}</ECF>`, warnings: read.findings };
}

/** The document buildEcf writes, as values: what parseEcf gives back from the XML. */
export function normaliseEcf(document: EcfJson, owned: ServiceOwnedFields): NormaliseResult {
  const read = readForBuild(document, owned, true);
  if (!read.ok) return read;
  return { ok: true, document: read.document, warnings: read.findings };
}

/**
 * The values a client's document would be written with, the service-owned fields aside, as far as they can be
 * read: an element refused is left out (validateStructure says why), the rest is as normaliseEcf gives it. What a
 * preview shows of a document still being written; undefined while its TipoeCF is not an e-CF type.
 */
export function readEcfValues(document: EcfJson): EcfObject | undefined {
  const type = documentType(document);
  return type === undefined ? undefined : readEcfDocument(type, document, { collect: true }).document;
}

function readForBuild(
  document: EcfJson,
  owned: ServiceOwnedFields,
  collect: boolean,
): ({ ok: true } & ReadDocument) | { ok: false; findings: Finding[] } {
  const type = documentType(document);
  if (type === undefined) {
    const declared = declaredType(document);
    const message = declared === undefined ? 'TipoeCF is mandatory' : `TipoeCF ${declared} is not an e-CF type`;
    return {
      ok: false,
      findings: [error('/Encabezado/IdDoc/TipoeCF', declared === undefined ? 'missing' : 'not_in_catalogue', message)],
    };
  }
  const read = readEcfDocument(type, document, { owned, collect });
  if (read.findings.some((f) => f.severity === 'error')) return { ok: false, findings: read.findings };
  return { ok: true, ...read };
}
