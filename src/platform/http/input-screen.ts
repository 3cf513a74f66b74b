// What every request's text must be before any route sees it, one rule for path parameters, query and JSON bodies:
// no NUL (PostgreSQL refuses U+0000 in text, so a NUL that reached a query was a 500), and JSON no deeper than any
// body the contract defines. Header values need no check here: Node's HTTP parser refuses a NUL in a header before
// Fastify sees the request (the client error handler answers it). Documents from outside (XML) have their own screen,
// fiscal/xml/untrusted-xml.ts, and are kept byte for byte in the blob store, never in a text column.
import type { FieldError } from './problems.js';

/**
 * The deepest JSON body the contract defines is 8 levels (an e-CF's item sub-discount:
 * /DetallesItems/Item/0/TablaSubDescuento/SubDescuento/0/...); 32 leaves room for any caller and bounds every
 * walk over a body, recursive or not (fiscal/build reads documents recursively).
 */
export const maxJsonDepth = 32;

type Where = FieldError['in'];

function pointerOf(path: readonly (string | number)[]): string {
  return path.length === 0 ? '/' : `/${path.map((part) => String(part).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
}

function nulError(where: Where, path: readonly (string | number)[]): FieldError {
  return { pointer: pointerOf(path), in: where, code: 'forbidden_character', detail: 'U+0000 (NUL) is not allowed in text.' };
}

/** The first NUL in path parameters or query values (a repeated query key is a list), as a field error. */
export function textFieldError(where: 'params' | 'query', values: unknown): FieldError | undefined {
  if (typeof values !== 'object' || values === null) return undefined;
  for (const [name, value] of Object.entries(values)) {
    if (name.includes('\u0000')) return nulError(where, [name]);
    const list: unknown[] = Array.isArray(value) ? value : [value];
    for (const item of list) if (typeof item === 'string' && item.includes('\u0000')) return nulError(where, [name]);
  }
  return undefined;
}

interface Pending {
  value: unknown;
  depth: number;
  path: readonly (string | number)[];
}

/**
 * The first NUL in a parsed JSON body's strings or keys, or the first value nested deeper than maxJsonDepth, as a
 * field error naming it. Walked with an explicit stack: the body may be as deep as JSON.parse allows (it does not
 * recurse), and this walk is what lets the rest of the service recurse safely. Paths are only built for values
 * that nest, so the walk stays linear in the body's size.
 */
export function jsonFieldError(body: unknown): FieldError | undefined {
  const pending: Pending[] = [{ value: body, depth: 0, path: [] }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, depth, path } = next;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return nulError('body', path);
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= maxJsonDepth) {
      return { pointer: pointerOf(path), in: 'body', code: 'too_deep', detail: `JSON nested more than ${maxJsonDepth} levels deep is not accepted.` };
    }
    const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value);
    for (let index = entries.length - 1; index >= 0; index--) {
      const [key, item] = entries[index] as [string | number, unknown];
      if (typeof key === 'string' && key.includes('\u0000')) return nulError('body', [...path, key]);
      if (typeof item === 'string') {
        if (item.includes('\u0000')) return nulError('body', [...path, key]);
      } else if (typeof item === 'object' && item !== null) {
        pending.push({ value: item, depth: depth + 1, path: [...path, key] });
      }
    }
  }
  return undefined;
}
