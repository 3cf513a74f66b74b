// JSON in, XML out: the DGII-shaped document checked against the model and written in XSD order.
export { buildEcf, normaliseEcf, readEcfValues } from './build-ecf.js';
export type { BuildResult, NormaliseResult } from './build-ecf.js';
export type { EcfJson, EcfObject, EcfValue, ServiceOwnedFields } from './ecf-json.js';
export { validateStructure } from './validate-structure.js';
