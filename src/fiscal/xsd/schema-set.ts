import { XmlDocument, XmlParseError, XmlValidateError } from 'libxml2-wasm';
import { compileXsd, safeParseOptions, type CompiledXsd } from './compile-schema.js';
import { repairSchema } from './repair-schema.js';
import { kindOfSchemaFile, schemaKinds, type SchemaKind } from './schema-kinds.js';
import { defaultMaxXmlBytes, guardXml } from './xml-guard.js';
import { documentFinding, findingFromDetail, type XsdFinding } from './xsd-finding.js';

export interface SchemaSet {
  /** Findings for one document against one kind's schema; empty when valid. Never throws for bad input. */
  validate(kind: SchemaKind, xml: string | Uint8Array): XsdFinding[];
  /** Every repair made to DGII's files while compiling, one line each. */
  readonly repairs: readonly string[];
  dispose(): void;
}

export interface SchemaSetOptions {
  /** Larger documents are refused unparsed (`xml_forbidden`). */
  maxXmlBytes?: number;
}

export class SchemaSetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SchemaSetError';
  }
}

/**
 * Repairs and compiles each of the fifteen schemas once. `files` maps a file name (ours, `e-CF-31.xsd`, or DGII's,
 * `e-CF 31 v.1.0.xsd`) to its text; files that name no kind are ignored, a missing kind is an error naming it.
 */
export function compileSchemaSet(files: ReadonlyMap<string, string>, options: SchemaSetOptions = {}): SchemaSet {
  const sources = sourcesByKind(files);
  const maxXmlBytes = options.maxXmlBytes ?? defaultMaxXmlBytes;
  const compiled = new Map<SchemaKind, CompiledXsd>();
  const repairs: string[] = [];
  try {
    for (const [kind, { fileName, text }] of sources) {
      const repaired = repairSchema(fileName, text);
      repairs.push(...repaired.repairs);
      compiled.set(kind, compileXsd(fileName, repaired.text));
    }
  } catch (error) {
    for (const schema of compiled.values()) schema.dispose();
    throw error;
  }

  let disposed = false;
  return {
    repairs,
    validate(kind, xml) {
      if (disposed) throw new SchemaSetError('the schema set was disposed');
      const schema = compiled.get(kind);
      if (schema === undefined) throw new SchemaSetError(`no schema compiled for ${kind}`);
      return validateWith(schema, xml, maxXmlBytes);
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      for (const schema of compiled.values()) schema.dispose();
    },
  };
}

function sourcesByKind(files: ReadonlyMap<string, string>): Map<SchemaKind, { fileName: string; text: string }> {
  const sources = new Map<SchemaKind, { fileName: string; text: string }>();
  for (const [fileName, text] of files) {
    const kind = kindOfSchemaFile(fileName);
    if (kind === undefined) continue;
    const other = sources.get(kind);
    if (other !== undefined)
      throw new SchemaSetError(`two schema files for ${kind}: ${other.fileName} and ${fileName}`);
    sources.set(kind, { fileName, text });
  }
  const missing = schemaKinds.filter((kind) => !sources.has(kind));
  if (missing.length > 0)
    throw new SchemaSetError(`missing XSD files for ${missing.map((kind) => `${kind} (${kind}.xsd)`).join(', ')}`);
  return sources;
}

function validateWith(schema: CompiledXsd, xml: string | Uint8Array, maxXmlBytes: number): XsdFinding[] {
  const guarded = guardXml(xml, maxXmlBytes);
  if (!guarded.ok) return [guarded.finding];
  let doc: XmlDocument;
  try {
    // UTF-8 forced: the DOCTYPE guard scanned these bytes as UTF-8, so libxml2 must read them the same way.
    doc = XmlDocument.fromBuffer(guarded.bytes, { encoding: 'utf-8', option: safeParseOptions });
  } catch (error) {
    if (!(error instanceof XmlParseError)) throw error;
    const findings = error.details.map((detail) => findingFromDetail('xml_malformed', { ...detail, xpath: undefined }));
    return findings.length > 0 ? findings : [documentFinding('xml_malformed', 'The document is not well-formed XML.')];
  }
  try {
    schema.validator.validate(doc);
    return [];
  } catch (error) {
    if (!(error instanceof XmlValidateError)) throw error;
    return error.details.map((detail) => findingFromDetail('xsd_invalid', detail));
  } finally {
    doc.dispose();
  }
}
