import type { FastifyRequest } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { ref } from './schema-ref.js';

export interface Meta {
  correlationId: string;
  timestamp: string;
  nextCursor?: string | null;
}

/** Every JSON business response: `{data, meta}` (SPEC §2.1). */
export function envelope<T>(request: FastifyRequest, data: T, extra: Partial<Meta> = {}): { data: T; meta: Meta } {
  return { data, meta: { correlationId: request.id, timestamp: new Date().toISOString(), ...extra } };
}

/** A page of a list: `meta.nextCursor` is what to pass as `cursor` next, null at the end. */
export function listEnvelope<T>(
  request: FastifyRequest,
  items: T[],
  nextCursor: string | null,
): { data: T[]; meta: Meta & { nextCursor: string | null } } {
  return { data: items, meta: { correlationId: request.id, timestamp: new Date().toISOString(), nextCursor } };
}

export const MetaSchema = Type.Object(
  {
    correlationId: Type.String({ description: 'Equals the X-Correlation-ID request header when one was sent.' }),
    timestamp: Type.String({ format: 'date-time' }),
  },
  { $id: 'Meta' },
);

export const ListMetaSchema = Type.Object(
  {
    correlationId: Type.String(),
    timestamp: Type.String({ format: 'date-time' }),
    nextCursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as `cursor` for the next page; null at the end.',
    }),
  },
  { $id: 'ListMeta' },
);

export function Envelope<T extends TSchema>(data: T) {
  return Type.Object({ data, meta: ref(MetaSchema) });
}

export function ListEnvelope<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item), meta: ref(ListMetaSchema) });
}

/** The `meta` of the contract's response examples. */
const exampleMeta = { correlationId: '5b7c2f0e-3d1a-4c8e-9f6b-2a4d8e1c7b90', timestamp: '2026-11-27T14:30:05.120Z' };

/** A route's success example (RouteDocs.examples.response) for `{data, meta}`. */
export function envelopeExample(data: unknown): Record<string, unknown> {
  return { 'application/json': { data, meta: exampleMeta } };
}

/** A route's success example for a page of a list (its items, as `data`); the last page: `nextCursor` is null. */
export function listExample(data: unknown): Record<string, unknown> {
  return { 'application/json': { data, meta: { ...exampleMeta, nextCursor: null } } };
}

/** The first example a named component schema carries, for the routes that answer with it. */
export function componentExample(schema: object): unknown {
  const examples = (schema as { examples?: unknown }).examples;
  if (!Array.isArray(examples) || examples.length === 0) throw new Error('componentExample: the schema has none');
  return examples[0];
}
