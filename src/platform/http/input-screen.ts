// What every request's text must be before any route sees it, one rule for path parameters, query and JSON bodies:
// no NUL (PostgreSQL refuses U+0000 in text, so a NUL that reached a query was a 500), and JSON no deeper than any
// body the contract defines. Header values need no check here: Node's HTTP parser refuses a NUL in a header before
// Fastify sees the request (the client error handler answers it). Documents from outside (XML) have their own screen,
// fiscal/xml/screen-untrusted-xml.ts, and are kept byte for byte in the blob store, never in a text column.
import type { FieldError } from '../result.js';

/**
 * The deepest JSON body the contract defines is 8 levels (an e-CF's item sub-discount:
 * /DetallesItems/Item/0/TablaSubDescuento/SubDescuento/0/...); 32 leaves room for any caller and bounds every
 * walk over a body, recursive or not (fiscal/build reads documents recursively).
 */
export const maxJsonDepth = 32;

type Where = FieldError['in'];

function pointerOf(path: readonly (string | number)[]): string {
  return path.length === 0
    ? '/'
    : `/${path.map((part) => String(part).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
}

function nulError(where: Where, path: readonly (string | number)[]): FieldError {
  return {
    pointer: pointerOf(path),
    in: where,
    code: 'forbidden_character',
    detail: 'U+0000 (NUL) is not allowed in text.',
  };
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

/**
 * The most values (members and elements) a JSON body may hold. JSON.parse costs about 0.5 µs per small object on
 * the 2-core reference machine, on the event loop: 5 MB of `{}` held it about a second. A 1,000-line e-CF (DGII's
 * limit) holds about 25,000 values, and the largest any e-CF's schema allows about 180,000: 200,000 keeps every
 * real body and bounds the parse at about 100 ms.
 */
export const maxJsonValues = 200_000;

export interface JsonTextScan {
  /** The text holds the escape \u0000, the only way JSON carries a NUL (a raw control character is a syntax error). */
  mayHoldNul: boolean;
  tooDeep: boolean;
  tooManyValues: boolean;
}

/**
 * What one pass over the raw JSON text says, strings skipped, before JSON.parse spends anything on it. A body
 * without \u0000 and without deep nesting, nearly every body, needs no walk after parsing.
 */
export function scanJsonText(text: string): JsonTextScan {
  let depth = 0;
  let tooDeep = false;
  let values = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x7b || code === 0x5b || code === 0x2c) {
      if (++values > maxJsonValues) return { mayHoldNul: false, tooDeep, tooManyValues: true };
      if (code !== 0x2c && ++depth > maxJsonDepth) tooDeep = true;
    } else if (code === 0x7d || code === 0x5d) {
      depth--;
    }
  }
  return { mayHoldNul: text.includes('\\u0000'), tooDeep, tooManyValues: false };
}

interface Pending {
  value: unknown;
  depth: number;
  parent: Pending | undefined;
  key: string | number;
}

function pathOf(entry: Pending | undefined, last?: string | number): (string | number)[] {
  const path: (string | number)[] = last === undefined ? [] : [last];
  for (let at = entry; at?.parent !== undefined; at = at.parent) path.unshift(at.key);
  return path;
}

/**
 * A NUL in a parsed JSON body's strings or keys, or the first value nested deeper than maxJsonDepth, as a field
 * error naming it. Walked with an explicit stack: the body may be as deep as JSON.parse allows (it does not
 * recurse), and this walk is what lets the rest of the service recurse safely. Each value is visited once and a
 * pointer is built only for the value refused, so the walk is linear in the body's size.
 */
export function jsonFieldError(body: unknown): FieldError | undefined {
  const pending: Pending[] = [{ value: body, depth: 0, parent: undefined, key: '' }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, depth } = next;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return nulError('body', pathOf(next));
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= maxJsonDepth) {
      return {
        pointer: pointerOf(pathOf(next)),
        in: 'body',
        code: 'too_deep',
        detail: `JSON nested more than ${maxJsonDepth} levels deep is not accepted.`,
      };
    }
    if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--)
        pending.push({ value: value[index] as unknown, depth: depth + 1, parent: next, key: index });
      continue;
    }
    const keys = Object.keys(value);
    for (let index = keys.length - 1; index >= 0; index--) {
      const key = keys[index] as string;
      if (key.includes('\u0000')) return nulError('body', pathOf(next, key));
      pending.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1, parent: next, key });
    }
  }
  return undefined;
}
