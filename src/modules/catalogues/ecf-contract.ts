// The creation body of an e-CF as the OpenAPI contract shows it: a oneOf of the ten per-type schemas that
// /esquemas serves (the same function, the same defaults), so that a client generated from the contract types a
// document by its TipoeCF. Contract only: the route still validates with the fiscal core's reader, whose 422 points
// at the field (documents.schema.ts EcfDocumentBody). Each schema's $defs become shared components, for generators.
import { isDeepStrictEqual } from 'node:util';
import { ecfTypes } from '../../fiscal/model/ecf-model-types.js';
import type { JsonSchema } from '../../fiscal/model/json-schema.js';
import { ecfCreationSchema } from './catalogues.service.js';

const componentRef = '#/components/schemas/';

/** `notSent` → `EcfNotSent`, `RNCValidationType` → `EcfRNCValidationType`: one namespace beside the API's own. */
function defComponentName(def: string): string {
  return `Ecf${def.charAt(0).toUpperCase()}${def.slice(1)}`;
}

/** A copy with every `#/$defs/X` reference pointed at its component. */
function withComponentRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withComponentRefs);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) =>
      key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')
        ? [key, componentRef + defComponentName(inner.slice('#/$defs/'.length))]
        : [key, withComponentRefs(inner)],
    ),
  );
}

/** "Not sent" refers to itself (a list of empties is empty), which a generated TypeScript client cannot type
 * (openapi-typescript: TS2502). Here it is unrolled six lists or groups deep (the model nests groups 5 deep): an
 * emptiness deeper than that is left to the service's own check. */
function notSentForGenerators(notSent: JsonSchema, depth = 6): JsonSchema {
  const below = depth === 0 ? [] : [notSentForGenerators({}, depth - 1)];
  return {
    ...(notSent['description'] === undefined ? {} : { description: notSent['description'] }),
    anyOf: [
      { type: 'null' },
      { const: '' },
      ...below.flatMap((inner) => [
        { type: 'array', items: inner },
        { type: 'object', additionalProperties: inner },
      ]),
    ],
  };
}

/** `EcfDocumentBody` as the union, `EcfDocument31` … `EcfDocument47`, and their data types. */
export function ecfDocumentContractSchemas(): Record<string, object> {
  const components: Record<string, object> = {};
  const defs: Record<string, unknown> = {};
  for (const type of ecfTypes) {
    // Contract-level names: no $schema or $id inside components (the document is 2020-12 already).
    const { $schema: _schema, $id: _id, $defs, ...schema } = ecfCreationSchema(type, true);
    for (const [name, def] of Object.entries($defs as Record<string, JsonSchema>)) {
      // Data types are the model's, the same for every type; a difference would make a shared name lie.
      if (name in defs && !isDeepStrictEqual(defs[name], def))
        throw new Error(`ecf-contract: $defs/${name} differs between e-CF types`);
      defs[name] = def;
    }
    components[`EcfDocument${type}`] = withComponentRefs(schema) as object;
  }
  for (const [name, def] of Object.entries(defs)) components[defComponentName(name)] = withComponentRefs(def) as object;
  components[defComponentName('notSent')] = notSentForGenerators(defs['notSent'] as JsonSchema);
  components['EcfDocumentBody'] = {
    description:
      'The e-CF as DGII-shaped JSON, one schema per TipoeCF (an enum in each, so exactly one applies). These are the ' +
      'schemas GET /api/v1/esquemas/ecf/{type} serves for a company whose profile has an address (DireccionEmisor ' +
      'defaults from it); fetch that route for your own company. Leave out eNCF, FechaVencimientoSecuencia and ' +
      'FechaHoraFirma (the service sets them); Emisor defaults from the company profile and Totales are computed ' +
      'from the lines when left out. The service checks the body itself and answers 422 document_invalid with a ' +
      'JSON pointer per finding.',
    oneOf: ecfTypes.map((type) => ({ $ref: `${componentRef}EcfDocument${type}` })),
  };
  return components;
}
