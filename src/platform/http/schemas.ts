import { Type } from 'typebox';
import type { ProblemCode } from '../result.js';
import { problemCatalogue } from './problems.js';
import { ref } from './schema-ref.js';

export const FieldErrorSchema = Type.Object(
  {
    pointer: Type.String({ description: 'JSON pointer into the part of the request named by `in`.' }),
    in: Type.Union([Type.Literal('body'), Type.Literal('query'), Type.Literal('params'), Type.Literal('headers')]),
    code: Type.String(),
    detail: Type.String(),
  },
  { $id: 'FieldError' },
);

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.String(),
    code: Type.Enum(Object.keys(problemCatalogue) as ProblemCode[]),
    correlationId: Type.String(),
    errors: Type.Optional(Type.Array(ref(FieldErrorSchema))),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details, served as application/problem+json.' },
);
