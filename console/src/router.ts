// Paths under the console's base (/consola, or its alias /console: whichever the page was opened at), moved
// through with the History API so that every page has an address a person can keep, share and reload.
import { useEffect, useState } from 'preact/hooks';

export const base = window.location.pathname.startsWith('/console') ? '/console' : '/consola';

const listeners = new Set<() => void>();
window.addEventListener('popstate', () => {
  for (const listener of listeners) listener();
});

export interface Location {
  /** Within the console, e.g. `/documentos/doc_…`; `/` for the start. */
  path: string;
  query: URLSearchParams;
}

function current(): Location {
  const path = window.location.pathname.slice(base.length) || '/';
  return { path, query: new URLSearchParams(window.location.search) };
}

export function href(path: string, query?: URLSearchParams): string {
  const search = query === undefined || query.size === 0 ? '' : `?${query.toString()}`;
  return `${base}${path}${search}`;
}

/** `query` with `name` set to `value`, or without it when `value` is undefined. */
export function withQuery(query: URLSearchParams, name: string, value: string | undefined): URLSearchParams {
  const next = new URLSearchParams(query);
  if (value === undefined) next.delete(name);
  else next.set(name, value);
  return next;
}

export function navigate(path: string, query?: URLSearchParams, options: { replace?: boolean } = {}): void {
  const to = href(path, query);
  if (options.replace === true) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  for (const listener of listeners) listener();
}

export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = () => {
      setLocation(current());
    };
    listeners.add(update);
    return () => {
      listeners.delete(update);
    };
  }, []);
  return location;
}

/** The one of `values` a query parameter names, or undefined for any other value (or none). */
export function oneOf<T extends string>(values: readonly T[], value: string | null): T | undefined {
  return values.find((candidate) => candidate === value);
}

/** `pattern` like `/documentos/:id`: the named segments (decoded), or undefined when `path` is not of it. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const have = path.replace(/\/$/, '').split('/');
  if (want.length !== have.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, part] of want.entries()) {
    const value = have[i] ?? '';
    if (part.startsWith(':')) {
      if (value === '') return undefined;
      params[part.slice(1)] = decodeURIComponent(value);
    } else if (part !== value) return undefined;
  }
  return params;
}
