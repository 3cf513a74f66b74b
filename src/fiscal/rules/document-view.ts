// Read-only access to a DGII-shaped JSON document (element names as keys) for the rules, which must cope with
// whatever a client sent: every read is checked, nothing is assumed present.

export type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function objectAt(document: unknown, path: readonly string[]): JsonObject | undefined {
  let current: unknown = document;
  for (const key of path) {
    if (!isObject(current)) return undefined;
    current = current[key];
  }
  return isObject(current) ? current : undefined;
}

/** A leaf as text: strings as given, finite numbers in their plain decimal form. */
export function textAt(document: unknown, path: readonly string[]): string | undefined {
  const parent = objectAt(document, path.slice(0, -1));
  const value = parent?.[path[path.length - 1] ?? ''];
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** A repeated element: an array, or a single object standing for a one-element list. */
export function listAt(document: unknown, path: readonly string[]): JsonObject[] {
  const parent = objectAt(document, path.slice(0, -1));
  const value = parent?.[path[path.length - 1] ?? ''];
  if (Array.isArray(value)) return value.filter(isObject);
  return isObject(value) ? [value] : [];
}

export function pointer(path: readonly (string | number)[]): string {
  return `/${path.map((part) => String(part).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
}

export const items = (document: unknown) => listAt(document, ['DetallesItems', 'Item']);
export const tipoeCF = (document: unknown) => textAt(document, ['Encabezado', 'IdDoc', 'TipoeCF']);
