// The fifteen documents DGII publishes a schema for, and how a document or a schema file names its kind.

export const schemaKinds = [
  'e-CF-31',
  'e-CF-32',
  'e-CF-33',
  'e-CF-34',
  'e-CF-41',
  'e-CF-43',
  'e-CF-44',
  'e-CF-45',
  'e-CF-46',
  'e-CF-47',
  'RFCE-32',
  'ARECF',
  'ACECF',
  'ANECF',
  'Semilla',
] as const;
export type SchemaKind = (typeof schemaKinds)[number];

export function isSchemaKind(value: string): value is SchemaKind {
  return (schemaKinds as readonly string[]).includes(value);
}

/**
 * The kind a schema file holds, from either naming: ours (`e-CF-31.xsd`, `ARECF.xsd`) or DGII's as downloaded
 * (`e-CF 31 v.1.0.xsd`, `ARECF v1.0.xsd`), so an operator can point ECF_XSD_DIR at DGII's files unrenamed.
 */
export function kindOfSchemaFile(fileName: string): SchemaKind | undefined {
  const match = /^(.*?)(?:\s+v\.?\s?\d+\.\d+)?\.xsd$/i.exec(fileName.trim());
  if (match === null) return undefined;
  const name = (match[1] ?? '').trim().replace(/\s+/g, '-');
  return schemaKinds.find((kind) => kind.toLowerCase() === name.toLowerCase());
}

// Roots whose name is not the kind itself; ECF needs its TipoeCF as well.
const kindByRoot: Readonly<Record<string, SchemaKind>> = {
  RFCE: 'RFCE-32',
  ARECF: 'ARECF',
  ACECF: 'ACECF',
  ANECF: 'ANECF',
  SemillaModel: 'Semilla',
};

// TipoeCF is the first child of IdDoc, a few hundred bytes in; 64 KB leaves room for an indented or commented prolog.
const headBytes = 64 * 1024;

/** The schema a document claims by its root element (and, for an e-CF, its TipoeCF); undefined when unknown. */
export function detectKind(xml: string | Uint8Array): SchemaKind | undefined {
  const head = typeof xml === 'string' ? xml.slice(0, headBytes) : new TextDecoder().decode(xml.subarray(0, headBytes));
  const root = rootElementName(head);
  if (root === undefined) return undefined;
  if (root !== 'ECF') return kindByRoot[root];
  const tipo = /<TipoeCF>\s*(\d+)\s*<\/TipoeCF>/.exec(head)?.[1];
  if (tipo === undefined) return undefined;
  const kind = `e-CF-${tipo}`;
  return isSchemaKind(kind) ? kind : undefined;
}

/** The local name of the first element, past a BOM, the XML declaration, processing instructions and comments. */
export function rootElementName(head: string): string | undefined {
  const prolog = /^\uFEFF?(?:\s+|<\?[\s\S]*?\?>|<!--[\s\S]*?-->)*<(?:[A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)/;
  return prolog.exec(head)?.[1];
}
