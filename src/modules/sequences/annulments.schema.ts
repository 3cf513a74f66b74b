// Annulments of unused e-NCF (ANECF): the request, how a request reads back, and the burned numbers awaiting one.
import { Type, type Static } from 'typebox';
import { ecfTypes } from '../../fiscal/model/ecf-model-types.js';
import { anecfLimits } from '../../fiscal/responses/anecf.js';
import { ListQuery } from '../../platform/http/list-query.js';

const encf = Type.String({ pattern: '^E\\d{12}$' });

export const RequestAnnulment = Type.Object(
  {
    ranges: Type.Array(
      Type.Object(
        {
          ecfType: Type.String({ enum: [...ecfTypes] }),
          from: encf,
          to: encf,
        },
        { additionalProperties: false },
      ),
      {
        minItems: 1,
        // An ANECF's 10 lines of 10,000 ranges each (annulment-limits.ts refuses more of one type with a pointer).
        maxItems: anecfLimits.lines * anecfLimits.rangesPerLine,
        description:
          "Spans of unused numbers, each inside one of the company's ranges: numbers burned by failures (GET /secuencias/anulaciones/quemadas lists them ready to annul), and/or the whole rest of a range never handed out (from the range's next number to its last, however long; the range stops handing them out). Used numbers, numbers inside an active offline block and numbers already in an open request are refused. What one ANECF carries: at most 10 types, 10,000 ranges of a type and 9,999,999,999 numbers in all.",
      },
    ),
  },
  {
    $id: 'RequestAnnulment',
    additionalProperties: false,
  },
);
export type RequestAnnulment = Static<typeof RequestAnnulment>;

const Span = Type.Object({
  ecfType: Type.String(),
  from: Type.String(),
  to: Type.String(),
  count: Type.Integer(),
  kind: Type.String({ enum: ['burned', 'unissued'] }),
});

export const AnnulmentView = Type.Object(
  {
    id: Type.String(),
    status: Type.String({
      enum: ['pending', 'sending', 'accepted', 'rejected', 'failed'],
      description:
        'pending → sending → accepted | rejected (the numbers are given back) | failed (DGII could not be reached; reintentar).',
    }),
    total: Type.Integer({ description: 'CantidadeNCFAnulados.' }),
    spans: Type.Array(Span),
    attempts: Type.Integer(),
    dgii: Type.Object({
      estado: Type.Union([Type.String(), Type.Null()]),
      codigo: Type.Union([Type.String(), Type.Null()]),
      mensajes: Type.Array(Type.Object({ codigo: Type.Union([Type.String(), Type.Null()]), valor: Type.String() })),
    }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'AnnulmentView' },
);
export type AnnulmentView = Static<typeof AnnulmentView>;

export const BurnedSpan = Type.Object(
  {
    ecfType: Type.String(),
    from: Type.String(),
    to: Type.String(),
    count: Type.Integer(),
    causes: Type.Array(Type.String(), { description: 'Why the numbers were burned (distinct causes, first few).' }),
  },
  {
    $id: 'BurnedSpan',
    description:
      'Contiguous burned numbers of one type awaiting annulment: a span ready for POST /secuencias/anulaciones.',
  },
);
export type BurnedSpan = Static<typeof BurnedSpan>;

export const AnnulmentParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export const ListAnnulmentsQuery = ListQuery({});

export const annulmentSchemas = [RequestAnnulment, AnnulmentView, BurnedSpan];
