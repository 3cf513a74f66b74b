// The e-CF model: one description of every element of the ten e-CF types, generated from DGII's format document
// and XSDs (scripts/generate-ecf-model.ts), with its catalogues.
export { ecfTypes } from './ecf-model-types.js';
export type {
  AdditionalTaxEntry,
  CatalogueEntry,
  DataType,
  DecimalType,
  EcfDocumentModel,
  EcfElement,
  EcfType,
  EnumerationType,
  IntegerType,
  Obligation,
  ObligationSource,
  TextType,
} from './ecf-model-types.js';
export { dataTypeOf, ecfModel, isEcfType, isInCatalogue, serviceOwnedPaths } from './ecf-model.js';
export {
  catalogues,
  codigosImpuestoAdicional,
  codigosModificacion,
  formasPago,
  monedas,
  municipios,
  provincias,
  tiposIngresos,
  unidadesMedida,
} from './generated/catalogues.js';
export { obligations } from './generated/obligations.js';
