// Generates src/fiscal/model/generated/ from DGII's official material in ../shared/dgii (read-only):
// - the element tree of each e-CF type and the data types, from the XSDs v1.0 (structure and facets);
// - the obligation code per element and type, from the text of "Formato Comprobante Fiscal Electrónico (e-CF) V1.0";
// - the catalogues, from the XSD enumerations (labels from their comments) and Tabla I of the format document.
// Run: npx tsx scripts/generate-ecf-model.ts [dgiiDir [outDir]]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ecfTypes } from '../src/fiscal/model/ecf-model-types.js';
import type { DataType, EcfType } from '../src/fiscal/model/ecf-model-types.js';
import { readObligationRows, readAdditionalTaxRates } from './ecf-model-format-document.js';
import { deriveObligations } from './ecf-model-obligations.js';
import { readXsd } from './ecf-model-xsd-reader.js';
import type { RawElement } from './ecf-model-xsd-reader.js';
import { toDataType, catalogueNameFor } from './ecf-model-xsd-types.js';
import type { XsdSimpleType } from './ecf-model-xsd-types.js';

const dgiiDir = process.argv[2] ?? join(import.meta.dirname, '../../shared/dgii');
const outDir = process.argv[3] ?? join(import.meta.dirname, '../src/fiscal/model/generated');

// ---------------------------------------------------------------------------------------------------------------

interface Collected {
  dataTypes: Map<string, DataType>;
  catalogues: Map<string, Map<string, string>>;
  present: Map<string, Map<EcfType, RawElement>>;
  order: string[];
}

const collected: Collected = { dataTypes: new Map(), catalogues: new Map(), present: new Map(), order: [] };
const trees = new Map<EcfType, RawElement[]>();
const dataTypeIds = new Map<EcfType, Map<string, string>>();

function registerDataType(type: EcfType, xsdType: XsdSimpleType, elementName: string): string {
  const converted = toDataType(xsdType, catalogueNameFor(elementName, xsdType.name));
  if (converted.catalogue !== undefined) {
    const { name, entries } = converted.catalogue;
    const existing = collected.catalogues.get(name);
    const codes = entries.map((e) => e.code).join(',');
    // The model keeps one list per catalogue: stop if a type's XSD ever narrows or widens one.
    if (existing !== undefined && [...existing.keys()].join(',') !== codes)
      throw new Error(`e-CF-${type}: catalogue ${name} differs from another type's`);
    const catalogue = existing ?? new Map<string, string>();
    for (const entry of entries)
      if (!catalogue.has(entry.code) || catalogue.get(entry.code) === '') catalogue.set(entry.code, entry.label);
    collected.catalogues.set(name, catalogue);
  }
  const baseId = converted.dataType.kind === 'enumeration' ? converted.dataType.catalogue : xsdType.name;
  const json = JSON.stringify(converted.dataType);
  for (let n = 1; ; n++) {
    const id = n === 1 ? baseId : `${baseId}_${n}`;
    const existing = collected.dataTypes.get(id);
    if (existing === undefined) collected.dataTypes.set(id, converted.dataType);
    else if (JSON.stringify(existing) !== json) continue;
    dataTypeIds.get(type)?.set(`${elementName}|${xsdType.name}`, id);
    return id;
  }
}

function walk(
  type: EcfType,
  elements: RawElement[],
  prefix: string,
  simpleTypes: Map<string, XsdSimpleType>,
  previous: { path?: string },
): void {
  for (const element of elements) {
    const path = prefix === '' ? element.name : `${prefix}/${element.name}`;
    if (!collected.present.has(path)) {
      // Keep one document order across types: a path new to this type goes right after its predecessor.
      const at = previous.path === undefined ? collected.order.length : collected.order.indexOf(previous.path) + 1;
      collected.order.splice(at, 0, path);
      collected.present.set(path, new Map());
    }
    collected.present.get(path)?.set(type, element);
    previous.path = path;
    if (element.typeName !== undefined) {
      const xsdType = simpleTypes.get(element.typeName);
      if (xsdType === undefined) throw new Error(`e-CF-${type}: ${path} refers to unknown type ${element.typeName}`);
      registerDataType(type, xsdType, element.name);
    }
    if (element.children !== undefined) walk(type, element.children, path, simpleTypes, previous);
  }
}

for (const type of ecfTypes) {
  const { root, simpleTypes } = readXsd(dgiiDir, type);
  trees.set(type, root);
  dataTypeIds.set(type, new Map());
  walk(type, root, '', simpleTypes, {});
}

// ---------------------------------------------------------------------------------------------------------------
// Obligations

const formatText = readFileSync(join(dgiiDir, 'docs', 'Formato-Comprobante-Fiscal-Electronico-e-CF-V1.0.txt'), 'utf8');
const { obligations, conflicts, unmatchedRows } = deriveObligations(
  collected.order,
  collected.present,
  readObligationRows(formatText),
);

// ---------------------------------------------------------------------------------------------------------------
// Output

const header = (what: string): string =>
  [
    '// GENERATED by scripts/generate-ecf-model.ts — do not edit; run `npx tsx scripts/generate-ecf-model.ts`.',
    `// ${what}`,
    '',
  ].join('\n');

const q = (value: string): string => JSON.stringify(value);

function dataTypeLiteral(dataType: DataType): string {
  const parts = Object.entries(dataType).map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
  return `{ ${parts.join(', ')} }`;
}

function elementLiteral(type: EcfType, element: RawElement, prefix: string, indent: string): string {
  const path = prefix === '' ? element.name : `${prefix}/${element.name}`;
  const index = ecfTypes.indexOf(type);
  const obligation = obligations.get(path)?.codes[index] ?? 0;
  const fields = [
    `name: ${q(element.name)}`,
    `path: ${q(path)}`,
    `minOccurs: ${element.minOccurs}`,
    `maxOccurs: ${element.maxOccurs}`,
    `repeated: ${element.maxOccurs > 1}`,
    `obligation: ${obligation}`,
  ];
  if (element.typeName !== undefined) {
    fields.push(`dataType: ${q(dataTypeIds.get(type)?.get(`${element.name}|${element.typeName}`) ?? '')}`);
    return `${indent}{ ${fields.join(', ')} },`;
  }
  const children = (element.children ?? []).map((child) => elementLiteral(type, child, path, `${indent}  `));
  return [`${indent}{ ${fields.join(', ')}, children: [`, ...children, `${indent}] },`].join('\n');
}

mkdirSync(outDir, { recursive: true });
const written: string[] = [];
function write(file: string, text: string): void {
  if (text.length > 1024 * 1024) throw new Error(`${file} would exceed 1 MiB`);
  writeFileSync(join(outDir, file), text);
  written.push(file);
}

for (const type of ecfTypes) {
  const body = (trees.get(type) ?? []).map((element) => elementLiteral(type, element, '', '    ')).join('\n');
  write(
    `ecf-${type}.ts`,
    header(
      `Element tree of e-CF ${type} in XSD order (structure from e-CF-${type}.xsd; obligations: see obligations.ts).`,
    ) +
      `import type { EcfDocumentModel } from '../ecf-model-types.js';\n\n` +
      `export const ecf${type}: EcfDocumentModel = {\n  type: '${type}',\n  children: [\n${body}\n  ],\n};\n`,
  );
}

write(
  'data-types.ts',
  header('Data types used by the e-CF elements, converted from the XSD simple types (deduplicated across types).') +
    `import type { DataType } from '../ecf-model-types.js';\n\n` +
    `export const dataTypes: Readonly<Record<string, DataType>> = {\n` +
    [...collected.dataTypes.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([id, dataType]) => `  ${q(id)}: ${dataTypeLiteral(dataType)},`)
      .join('\n') +
    `\n};\n`,
);

const rates = readAdditionalTaxRates(formatText);
const catalogueLines = [...collected.catalogues.entries()]
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([name, entries]) => {
    const list = [...entries.entries()].map(([code, label]) => {
      const rate = name === 'codigosImpuestoAdicional' ? rates.get(code) : undefined;
      const extra = rate === undefined ? '' : `, rate: ${q(rate.rate)}, rateKind: ${q(rate.rateKind)}`;
      return `  { code: ${q(code)}, label: ${q(label)}${extra} },`;
    });
    const type = name === 'codigosImpuestoAdicional' ? 'AdditionalTaxEntry' : 'CatalogueEntry';
    return `export const ${name}: readonly ${type}[] = [\n${list.join('\n')}\n];\n`;
  });
write(
  'catalogues.ts',
  header(
    "Catalogues: the XSD enumerations (labels from DGII's comments beside each value), deduplicated across types;\n// additional-tax rates from Formato e-CF Tabla I (006–022 are amounts per unit, adjusted quarterly by DGII).",
  ) +
    `import type { AdditionalTaxEntry, CatalogueEntry } from '../ecf-model-types.js';\n\n` +
    catalogueLines.join('\n') +
    `\nexport const catalogues: Readonly<Record<string, readonly CatalogueEntry[]>> = {\n` +
    [...collected.catalogues.keys()]
      .sort()
      .map((name) => `  ${name},`)
      .join('\n') +
    `\n};\n`,
);

const formatCount = [...obligations.values()].filter((o) => o.source === 'format').length;
write(
  'obligations.ts',
  header(
    [
      `Obligation per element and type: 0 not applicable, 1 mandatory, 2 conditional, 3 optional (Formato e-CF p.4).`,
      `// Columns: ${ecfTypes.join(', ')}. Source 'format' (${formatCount} elements): the element's numbered row in the format`,
      `// document, or for a group its ÁREA row, matched by the <Name> printed beside it; where the XSD disagrees on`,
      `// existence the XSD wins (absent -> 0; present but 0 -> 1 if minOccurs >= 1 else 3), listed below as overrides.`,
      `// Source 'derived' (no printed row: XSD-only fields, some groups): absent from the type's XSD -> 0, minOccurs >= 1`,
      `// -> 1, otherwise 3 (a group: 2 if a descendant is 1 or 2). A minOccurs >= 1 inside an optional group binds only`,
      `// when the group is present.`,
      ...conflicts.map((c) => `// override: ${c}`),
      ...unmatchedRows.map((r) => `// unmatched format row: ${r}`),
    ].join('\n'),
  ) +
    `import type { Obligation, ObligationSource } from '../ecf-model-types.js';\n\n` +
    `type Codes = readonly [Obligation, Obligation, Obligation, Obligation, Obligation, Obligation, Obligation, Obligation, Obligation, Obligation];\n\n` +
    `export const obligations: Readonly<Record<string, readonly [Codes, ObligationSource]>> = {\n` +
    collected.order
      .map((path) => {
        const entry = obligations.get(path);
        return `  ${q(path)}: [[${(entry?.codes ?? []).join(', ')}], ${q(entry?.source ?? 'derived')}],`;
      })
      .join('\n') +
    `\n};\n`,
);

write(
  'index.ts',
  header('The generated e-CF model, one tree per type.') +
    `import type { EcfDocumentModel, EcfType } from '../ecf-model-types.js';\n` +
    ecfTypes.map((type) => `import { ecf${type} } from './ecf-${type}.js';`).join('\n') +
    `\n\nexport const ecfModels: Readonly<Record<EcfType, EcfDocumentModel>> = {\n` +
    ecfTypes.map((type) => `  '${type}': ecf${type},`).join('\n') +
    `\n};\n`,
);

console.log(`wrote ${written.join(', ')} to ${outDir}`);
console.log(
  `obligations: ${formatCount} from the format document, ${obligations.size - formatCount} derived; ${conflicts.length} overrides; ${unmatchedRows.length} unmatched rows`,
);
