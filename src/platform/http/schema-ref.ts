import { Type, type Static, type TSchema } from 'typebox';

/**
 * A reference to a named component schema (registered with addSchema) that keeps the schema's static type,
 * so OpenAPI shows one named component while handlers stay typed.
 */
export function ref<T extends TSchema>(schema: T) {
  const id = (schema as { $id?: unknown }).$id;
  if (typeof id !== 'string') throw new Error('ref() needs a schema with an $id');
  return Type.Unsafe<Static<T>>(Type.Ref(id));
}
