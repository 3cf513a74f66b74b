// Lookups over the generated e-CF model: the tree of a type, an element's data type, a catalogue's codes.
import type { DataType, EcfDocumentModel, EcfElement, EcfType } from './ecf-model-types.js';
import { ecfTypes } from './ecf-model-types.js';
import { catalogues } from './generated/catalogues.js';
import { dataTypes } from './generated/data-types.js';
import { ecfModels } from './generated/index.js';

export function isEcfType(value: unknown): value is EcfType {
  return typeof value === 'string' && (ecfTypes as readonly string[]).includes(value);
}

export function ecfModel(type: EcfType): EcfDocumentModel {
  return ecfModels[type];
}

export function dataTypeOf(element: EcfElement): DataType | undefined {
  return element.dataType === undefined ? undefined : dataTypes[element.dataType];
}

const catalogueCodes = new Map(
  Object.entries(catalogues).map(([name, entries]) => [name, new Set(entries.map((e) => e.code))]),
);

export function isInCatalogue(catalogue: string, code: string): boolean {
  return catalogueCodes.get(catalogue)?.has(code) ?? false;
}

/** The codes of a catalogue (empty for a name that is not one). */
export function catalogueCodesOf(catalogue: string): ReadonlySet<string> {
  return catalogueCodes.get(catalogue) ?? new Set();
}

/** Elements whose value the service sets, never the client: the e-NCF and its expiry come from the allocated
 * range, FechaHoraFirma from the signing moment. */
export const serviceOwnedPaths: ReadonlySet<string> = new Set([
  'Encabezado/IdDoc/eNCF',
  'Encabezado/IdDoc/FechaVencimientoSecuencia',
  'FechaHoraFirma',
]);
