// The kinds of environment variable config.ts declares: what each accepts, the message that refuses a bad value
// and how its declared default applies. A declaration is one object: its name, default, range and meaning (for
// docs/configuration.md) and its reader; config.ts derives the Config type and the parser from a tree of them.
import cronParser from 'cron-parser';

export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

/** What docs/configuration.md says of a variable. */
interface Described {
  /** What it means, as docs/configuration.md says it. */
  doc: string;
  /** The documented default when it is not one plain value: derived from other settings, or made at start. */
  defaultNote?: string;
}

/** A text's `shape` says what it is, for docs/configuration.md; a secret shorter than its `minLength` is refused. */
export type Setting = Described & { env: string } & (
    | { kind: 'integer'; default: number | undefined; min: number; max: number }
    | { kind: 'flag'; default: undefined }
    | { kind: 'choice'; values: readonly string[]; default: string | undefined }
    | { kind: 'text'; default: string | undefined; shape?: string; minLength?: number }
    | { kind: 'url'; protocols: readonly string[]; default: string | undefined }
    | { kind: 'cron'; default: string }
    | { kind: 'key'; default: undefined }
  );

/** A declared variable's reader: its value in `env`, checked, with the declared default when unset. */
export interface Reader<T = unknown> {
  readonly env: string;
  read(env: Env): T;
}

/** The value of an unset variable: the declared default, or undefined when there is none. */
type Defaulted<D, T> = D extends undefined ? T | undefined : T;

/**
 * `to` turns the value read into the one Config holds (hours into milliseconds, a path resolved); the checks and the
 * documented default stay those of the variable as written.
 */
type Conversion<D, T, U> = { default: D; to?: (value: Defaulted<D, T>) => U };

/** The variable's value, trimmed; empty and blank are unset. */
export function given(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function declare<const S extends Setting, T, U = Defaulted<S['default'], T>>(
  setting: S,
  parse: (value: string) => T,
  to: ((value: Defaulted<S['default'], T>) => U) | undefined,
): S & Reader<U> {
  const read = (env: Env): U => {
    const value = given(env, setting.env);
    const parsed = (value === undefined ? setting.default : parse(value)) as Defaulted<S['default'], T>;
    return to === undefined ? (parsed as U) : to(parsed);
  };
  return { ...setting, read } as S & Reader<U>;
}

export function integer<const N extends string, const D extends number | undefined, U = Defaulted<D, number>>(
  env: N,
  spec: Described & { min: number; max: number } & Conversion<D, number, U>,
) {
  const { to, ...described } = spec;
  return declare(
    { kind: 'integer', env, ...described },
    (value) => {
      if (!/^\d+$/.test(value) || Number(value) < spec.min || Number(value) > spec.max)
        throw new ConfigError(env, `must be a whole number from ${spec.min} to ${spec.max} (got "${value}")`);
      return Number(value);
    },
    to,
  );
}

export function flag<const N extends string>(env: N, spec: Described) {
  return declare(
    { kind: 'flag', env, default: undefined, ...spec },
    (value) => {
      if (value === 'true' || value === '1') return true;
      if (value === 'false' || value === '0') return false;
      throw new ConfigError(env, `must be true or false (got "${value}")`);
    },
    undefined,
  );
}

export function choice<
  const N extends string,
  const V extends readonly string[],
  const D extends V[number] | undefined,
>(env: N, spec: Described & { values: V; default: D }) {
  return declare(
    { kind: 'choice', env, ...spec },
    (value): V[number] => {
      const match = spec.values.find((candidate) => candidate === value);
      if (match === undefined) throw new ConfigError(env, `must be one of ${spec.values.join(', ')} (got "${value}")`);
      return match;
    },
    undefined,
  );
}

/** `matches`: what a value must look like, and how the refusal names it. */
export function text<const N extends string, const D extends string | undefined, U = Defaulted<D, string>>(
  env: N,
  spec: Described & { shape?: string; minLength?: number; matches?: { pattern: RegExp; as: string } } & Conversion<
      D,
      string,
      U
    >,
) {
  const { to, matches, ...described } = spec;
  return declare(
    { kind: 'text', env, ...described },
    (value) => {
      if (spec.minLength !== undefined && value.length < spec.minLength)
        throw new ConfigError(env, `must be at least ${spec.minLength} characters`);
      if (matches !== undefined && !matches.pattern.test(value))
        throw new ConfigError(env, `must be ${matches.as} (got "${value}")`);
      return value;
    },
    to,
  );
}

/** A refused URL is not echoed: it may carry credentials. */
export function url<const N extends string, const D extends string | undefined, U = Defaulted<D, string>>(
  env: N,
  spec: Described & { protocols: readonly string[] } & Conversion<D, string, U>,
) {
  const { to, ...described } = spec;
  return declare(
    { kind: 'url', env, ...described },
    (value) => {
      let parsed: URL;
      try {
        parsed = new URL(value);
      } catch {
        throw new ConfigError(env, 'must be a URL');
      }
      if (!spec.protocols.includes(parsed.protocol))
        throw new ConfigError(env, `must use ${spec.protocols.join(' or ')} (got ${parsed.protocol})`);
      return value;
    },
    to,
  );
}

/** Five cron fields of digits, `*`, `/`, `,` and `-`, each within its range (`61 * * * *` is refused here, at
 * start, not by the scheduler when it reckons the time). */
export function cron<const N extends string>(env: N, spec: Described & { default: string }) {
  return declare(
    { kind: 'cron', env, ...spec },
    (value) => {
      const refused = () => new ConfigError(env, `must be a five-field cron expression (got "${value}")`);
      if (!/^[\d*/,-]+( [\d*/,-]+){4}$/.test(value)) throw refused();
      try {
        cronParser.parseExpression(value);
      } catch {
        throw refused();
      }
      return value;
    },
    undefined,
  );
}

/** 32 bytes given as 64 hex characters or as base64; a refused key is not echoed. */
export function key<const N extends string>(env: N, spec: Described) {
  return declare(
    { kind: 'key', env, default: undefined, ...spec },
    (value) => {
      const bytes = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
      if (bytes.length !== 32) throw new ConfigError(env, 'must be 32 bytes, as 64 hex characters or base64');
      return bytes;
    },
    undefined,
  );
}

/** Declared variables in a tree shaped as Config: each leaf sits where its value goes. */
export interface SettingsTree {
  readonly [key: string]: Reader | SettingsTree;
}

/** The values a tree reads, in its shape. */
export type ReadTree<T> = { [K in keyof T]: T[K] extends Reader<infer V> ? V : ReadTree<T[K]> };

type ReadersOf<T> = { [K in keyof T]: T[K] extends Reader ? T[K] : ReadersOf<T[K]> }[keyof T];

/** The declarations of a tree by variable name. */
export type ByName<T> = { [R in ReadersOf<T> as R extends { env: infer N extends string } ? N : never]: R };

function isReader(node: Reader | SettingsTree): node is Reader {
  return typeof node.env === 'string' && typeof node.read === 'function';
}

export function readTree<T extends SettingsTree>(tree: T, env: Env): ReadTree<T> {
  const values = Object.entries(tree).map(([name, node]) => [
    name,
    isReader(node) ? node.read(env) : readTree(node, env),
  ]);
  return Object.fromEntries(values) as ReadTree<T>;
}

/** Every declaration of the tree by its variable's name, in the tree's order. */
export function byName<T extends SettingsTree>(tree: T): ByName<T> {
  const readers = (node: SettingsTree): Reader[] =>
    Object.values(node).flatMap((child) => (isReader(child) ? [child] : readers(child)));
  return Object.fromEntries(readers(tree).map((reader) => [reader.env, reader])) as ByName<T>;
}
