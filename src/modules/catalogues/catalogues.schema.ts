import { Type, type Static } from 'typebox';
import { ListQuery } from '../../platform/http/list-query.js';

const ecfTypes = ['31', '32', '33', '34', '41', '43', '44', '45', '46', '47'];

export const CatalogueSummary = Type.Object({
  key: Type.String({ description: 'Pass as `:catalog` to list the entries; the name the XSD gives the enumeration.' }),
  title: Type.Object({ es: Type.String(), en: Type.String() }),
  count: Type.Integer({ description: 'Entries in the catalogue.' }),
  source: Type.String({ description: 'The DGII material the entries come from.' }),
  version: Type.String({ description: 'Its version.' }),
});
export type CatalogueSummary = Static<typeof CatalogueSummary>;

export const CatalogueItem = Type.Object({
  code: Type.String({ description: 'The value the e-CF carries.' }),
  name: Type.String(),
  abbreviation: Type.Optional(Type.String({ description: 'Units of measure: DGII abbreviation (KG, UND, ...).' })),
  province: Type.Optional(Type.String({ description: 'Municipalities: code of the province (catalogue provincias).' })),
  municipality: Type.Optional(Type.String({ description: 'Municipal districts: code of their municipality.' })),
  kind: Type.Optional(
    Type.Union([Type.Literal('specific'), Type.Literal('ad_valorem'), Type.Literal('other')], {
      description: 'Additional taxes: ISC específico, ISC ad valorem, or other (propina, CDT, ...).',
    }),
  ),
  rate: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: 'Additional taxes: the percentage fixed by law; null where DGII indexes an amount per unit.',
    }),
  ),
  referenceAmount: Type.Optional(
    Type.String({
      description:
        'Additional taxes 006–022: amount per unit printed in Tabla I; DGII indexes it quarterly, send the one in force.',
    }),
  ),
});

export const CatalogueParams = Type.Object({ catalog: Type.String({ minLength: 1, maxLength: 64 }) });

export const CatalogueQuery = ListQuery({
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Code or name contains this text; case and accents ignored.',
    }),
  ),
});
export type CatalogueQuery = Static<typeof CatalogueQuery>;

export const SchemaParams = Type.Object({
  type: Type.String({ minLength: 1, maxLength: 8, description: `One of ${ecfTypes.join(', ')}.` }),
});

export const EcfJsonSchema = Type.Object(
  {},
  {
    additionalProperties: true,
    description: 'A JSON Schema (draft 2020-12) of the document-creation body of that type.',
  },
);
