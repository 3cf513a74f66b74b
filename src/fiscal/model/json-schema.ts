// The JSON Schema (2020-12) of the document-creation body of one e-CF type, generated from the same model the
// builder reads (fiscal/build/read-ecf-document.ts, leaf-value.ts), so that it says what the API accepts: a body the
// API accepts validates, and a body the structural check refuses is refused here too. Where JSON Schema cannot say
// a rule exactly (the decimals of an amount sent as a binary number), the description says it.
import type { DataType, DecimalType, EcfElement, EcfType, IntegerType, TextType } from './ecf-model-types.js';
import { ecfModel, serviceOwnedPaths } from './ecf-model.js';
import { catalogues, tiposECF } from './generated/catalogues.js';
import { dataTypes } from './generated/data-types.js';
import { obligations } from './generated/obligations.js';

export type JsonSchema = { readonly [keyword: string]: unknown };

export interface EcfSchemaOptions {
  /** Model paths the service fills in when the client leaves them out (compose-document.ts): not required. */
  readonly defaulted?: ReadonlySet<string>;
  /** Where catalogue entries are served, to point descriptions at (e.g. `/api/v1/catalogos`). */
  readonly cataloguesUrl?: string;
  readonly examples?: readonly unknown[];
}

const obligationText = ['no aplica', 'obligatorio', 'condicional', 'opcional'] as const;

/** An empty value stands for "not sent" (read-ecf-document.ts isEmpty): null, "", or a list or group of empties. */
const notSent: JsonSchema = {
  description: 'Vacío: equivale a no enviar el elemento (null, "", o una lista u objeto con solo valores vacíos).',
  anyOf: [
    { type: 'null' },
    { const: '' },
    { type: 'array', items: { $ref: '#/$defs/notSent' } },
    { type: 'object', additionalProperties: { $ref: '#/$defs/notSent' } },
  ],
};
const notSentRef: JsonSchema = { $ref: '#/$defs/notSent' };

export function ecfJsonSchema(type: EcfType, options: EcfSchemaOptions = {}): JsonSchema {
  const defaulted = options.defaulted ?? new Set<string>();
  const used = new Set<string>();
  const label = tiposECF.find((entry) => entry.code === type)?.label ?? '';

  function elementSchema(element: EcfElement): JsonSchema {
    const description = `${element.name}: ${obligationText[element.obligation]} en e-CF ${type} (Formato e-CF v1.0)`;
    if (serviceOwnedPaths.has(element.path))
      return { ...notSentRef, description: `${element.name}: lo asigna el servicio; no se envía.` };
    if (element.path === 'Encabezado/IdDoc/TipoeCF')
      return { enum: [type, Number(type)], description: `TipoeCF: ${type} (${label}).` };
    const one = occurrenceSchema(element);
    if (!element.repeated) return { ...one, description };
    const max = Number.isFinite(element.maxOccurs) ? { maxItems: element.maxOccurs } : {};
    return {
      type: 'array',
      minItems: 1,
      ...max,
      items: one,
      description: `${description}; una lista de hasta ${String(element.maxOccurs)}.`,
    };
  }

  /** One occurrence, as sent (never empty: an empty entry of a list is refused, an empty value is "not sent"). */
  function occurrenceSchema(element: EcfElement): JsonSchema {
    if (element.children !== undefined) return { ...groupSchema(element.path, element.children), not: notSentRef };
    const name = element.dataType as string;
    used.add(name);
    return { $ref: `#/$defs/${name}` };
  }

  function groupSchema(path: string, children: readonly EcfElement[]): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const child of children) {
      const schema = elementSchema(child);
      const mustSend =
        (child.obligation === 1 || child.minOccurs >= 1) &&
        !defaulted.has(child.path) &&
        !serviceOwnedPaths.has(child.path);
      if (mustSend) required.push(child.name);
      properties[child.name] =
        mustSend || serviceOwnedPaths.has(child.path)
          ? schema
          : { anyOf: [schema, notSentRef], description: schema['description'] };
    }
    // Another type's element is "not applicable" here: tolerated only empty (read-ecf-document.ts unknownKeys).
    for (const other of Object.keys(obligations)) {
      const slash = other.lastIndexOf('/');
      const parent = slash < 0 ? '' : other.slice(0, slash);
      const name = other.slice(slash + 1);
      if (parent === path && !(name in properties))
        properties[name] = { ...notSentRef, description: `${name}: no aplica a e-CF ${type}; solo puede ir vacío.` };
    }
    return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
  }

  const root = groupSchema('', ecfModel(type).children);
  const defs: Record<string, JsonSchema> = { notSent };
  for (const name of [...used].sort())
    defs[name] = dataTypeSchema(name, dataTypes[name] as DataType, options.cataloguesUrl);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `urn:ecf-service:esquemas:ecf:${type}`,
    title: `e-CF ${type}: ${label}`,
    description:
      `Cuerpo de creación de un e-CF ${type} (${label}), generado del modelo del servicio (Formato e-CF v1.0 y XSD e-CF-${type} v1.0). ` +
      'Los nombres son los de DGII; los elementos repetidos son listas; los montos van como texto decimal o como número. ' +
      'eNCF, FechaVencimientoSecuencia y FechaHoraFirma los asigna el servicio; Version, los datos del Emisor que faltan y Totales se completan ' +
      'con el perfil de la empresa y las líneas. Las reglas fiscales entre campos y los totales se validan aparte.',
    ...root,
    $defs: defs,
    ...(options.examples === undefined ? {} : { examples: options.examples }),
  };
}

/** The schema of one of the model's data types, as it stands under `$defs`. */
export function dataTypeSchema(name: string, dataType: DataType, cataloguesUrl?: string): JsonSchema {
  switch (dataType.kind) {
    case 'text':
      return textSchema(dataType);
    case 'decimal':
    case 'integer':
      return numberSchema(name, dataType);
    case 'date':
      return { type: 'string', pattern: `^${datePattern}$`, description: 'Fecha dd-MM-aaaa (años 1900–2099).' };
    case 'timestamp':
      return {
        type: 'string',
        pattern: `^${datePattern} (?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$`,
        description: 'Fecha y hora dd-MM-aaaa HH:mm:ss (GMT-4).',
      };
    case 'enumeration': {
      const codes = (catalogues[dataType.catalogue] ?? []).map((entry) => entry.code);
      // leaf-value.ts: a code such as 1 or 43 may come as a number; "01" only as text.
      const numbers = codes.filter((code) => String(Number(code)) === code).map(Number);
      const where = cataloguesUrl === undefined ? '' : ` (${cataloguesUrl}/${dataType.catalogue})`;
      return { enum: [...codes, ...numbers], description: `Código del catálogo ${dataType.catalogue}${where}.` };
    }
  }
}

/** XML 1.0 Char (xml-writer.ts isXmlText). */
const xmlText = '^[\\t\\n\\r\\u0020-\\uD7FF\\uE000-\\uFFFD\\u{10000}-\\u{10FFFF}]*$';

function textSchema(type: TextType): JsonSchema {
  // "" is "not sent", so a sent text has at least one character whatever the XSD says.
  const lengths = {
    minLength: Math.max(1, type.minLength ?? 0),
    ...(type.maxLength === undefined ? {} : { maxLength: type.maxLength }),
  };
  return {
    type: 'string',
    ...lengths,
    pattern: xmlText,
    ...(type.pattern === undefined ? {} : { allOf: [{ pattern: type.pattern }] }),
  };
}

/** A real calendar date dd-MM-yyyy, 1900–2099, leap years included (leaf-value.ts isDate). */
const datePattern =
  '(?:(?:(?:0[1-9]|1[0-9]|2[0-8])-(?:0[1-9]|1[0-2])|(?:29|30)-(?:0[13-9]|1[0-2])|31-(?:0[13578]|1[02]))-(?:19|20)[0-9]{2}' +
  '|29-02-(?:(?:19|20)(?:0[48]|[2468][048]|[13579][26])|2000))';

interface NumericShape {
  readonly signed: boolean;
  readonly integerMax: number;
}

/** The sign and the most integer digits a numeric XSD pattern admits, read from its leading digit class. */
function numericShape(pattern: string): NumericShape | undefined {
  const match = /^\^\(\?:\(*(\[\+-\]\?)?\(*\[(?:0-9|\\p\{Nd\})\]\{(\d+),(\d+)\}/.exec(pattern);
  return match === null ? undefined : { signed: match[1] !== undefined, integerMax: Number(match[3]) };
}

function numberSchema(name: string, type: DecimalType | IntegerType): JsonSchema {
  const shape = type.pattern === undefined ? undefined : numericShape(type.pattern);
  if (type.pattern !== undefined && shape === undefined)
    throw new Error(`json-schema: pattern of ${name} not understood`);
  const fractionDigits = type.kind === 'decimal' ? (type.fractionDigits ?? 0) : 0;
  const integerDigits = Math.min(shape?.integerMax ?? 20, type.totalDigits ?? 20);

  const strings: JsonSchema[] = [
    { pattern: type.kind === 'integer' ? '^[+-]?[0-9]+$' : '^[+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)$' },
    ...(type.pattern === undefined ? [] : [{ pattern: type.pattern }]),
    ...(type.totalDigits === undefined ? [] : [{ pattern: totalDigitsPattern(type.kind, type.totalDigits) }]),
    ...(type.kind === 'decimal' ? [{ pattern: `^[^.]*(?:\\.[0-9]{0,${String(fractionDigits)}}0*)?$` }] : []),
    ...boundPatterns(name, type),
  ];

  // A number is written as text first (leaf-value.ts numberReader) and must then pass the same checks.
  const limit = 10 ** integerDigits;
  const number: Record<string, unknown> = { type: type.kind === 'integer' ? 'integer' : 'number' };
  const signed = shape === undefined || shape.signed;
  const lowest = type.kind === 'integer' ? Math.max(-(limit - 1), Number.MIN_SAFE_INTEGER) : -limit;
  const highest = type.kind === 'integer' ? Math.min(limit - 1, Number.MAX_SAFE_INTEGER) : limit;
  if (type.minExclusive !== undefined) number['exclusiveMinimum'] = Number(type.minExclusive);
  else if (type.minInclusive !== undefined) number['minimum'] = Number(type.minInclusive);
  else if (!signed) number['minimum'] = 0;
  else if (type.kind === 'integer') number['minimum'] = lowest;
  else number['exclusiveMinimum'] = lowest;
  if (type.maxInclusive !== undefined) number['maximum'] = Number(type.maxInclusive);
  else if (type.kind === 'integer') number['maximum'] = highest;
  else number['exclusiveMaximum'] = highest;

  const decimals = type.kind === 'decimal' ? ` Como número, con a lo sumo ${String(fractionDigits)} decimales.` : '';
  return {
    anyOf: [{ type: 'string', allOf: strings }, number],
    description: `${type.kind === 'integer' ? 'Entero' : 'Decimal'} (texto o número): a lo sumo ${String(integerDigits)} dígitos enteros${type.totalDigits === undefined ? '' : ` y ${String(type.totalDigits)} en total`}.${decimals}`,
  };
}

/** At most `total` significant digits (XSD totalDigits: leading zeros and a fraction's trailing zeros do not count). */
function totalDigitsPattern(kind: 'decimal' | 'integer', total: number): string {
  const rest = String(total - 1);
  if (kind === 'integer') return `^[+-]?0*[0-9]{0,${String(total)}}$`;
  return `^[+-]?0*(?:[1-9][0-9]{0,${rest}}|(?=[1-9][0-9]*\\.)[1-9](?:\\.?[0-9]){0,${rest}}\\.?0*|(?:\\.0*(?:[1-9][0-9]{0,${rest}}0*)?)?)$`;
}

/** The XSD bounds of the model as patterns on the text: the few shapes the model has, and an error for any other,
 * so that a new bound cannot pass unnoticed. */
function boundPatterns(name: string, type: DecimalType | IntegerType): JsonSchema[] {
  const out: JsonSchema[] = [];
  const positive: JsonSchema[] = [{ not: { pattern: '^-' } }, { pattern: '[1-9]' }];
  if (type.minExclusive === '0' || (type.minInclusive === '1' && type.kind === 'integer')) out.push(...positive);
  else if (type.minInclusive === '0') out.push({ not: { pattern: '^-.*[1-9]' } });
  else if (type.minExclusive === '1' && type.kind === 'integer')
    out.push(...positive, { not: { pattern: '^\\+?0*1$' } });
  else if (type.minExclusive !== undefined || type.minInclusive !== undefined)
    throw new Error(`json-schema: lower bound of ${name} not expressible`);
  if (type.maxInclusive !== undefined) {
    if (type.kind !== 'integer' || !/^10*$/.test(type.maxInclusive))
      throw new Error(`json-schema: upper bound of ${name} not expressible`);
    const zeros = type.maxInclusive.length - 1;
    const below = zeros === 0 ? '' : `[0-9]{1,${String(zeros)}}|`;
    out.push({ pattern: `^(?:-.*|\\+?0*(?:${below}${type.maxInclusive})?)$` });
  }
  return out;
}
