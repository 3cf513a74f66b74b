// Statements a process sends to PostgreSQL, by verb and table, and the connections it takes from pg's pools with
// how long it waited for them (pool exhausted): every query of the app (Kysely, pg-boss through the app's executor)
// goes through pg's Client.query and Pool.connect, counted here without touching the app. countPostgres() installs
// the counters in a bench's own process, when the bench runs (run.ts imports every bench, and the others must not
// pay for them); a child process gets them by preloading pg-counters-preload.ts (preloadPgCounters), and tells its
// count on SIGUSR2 (statementsSent).
import type { ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import pg from 'pg';

const statements = new Map<string, number>();
const connections = { taken: 0, waitedMs: 0 };

function statementKind(text: string): string {
  const verb = /^\s*\(?\s*(\w+)/.exec(text)?.[1]?.toLowerCase() ?? '?';
  if (verb === 'begin' || verb === 'commit' || verb === 'rollback') return verb;
  const table = /\b(?:from|into|update)\s+("?[\w.]+"?(?:\."?\w+"?)?)/i.exec(text)?.[1]?.replaceAll('"', '') ?? '?';
  return `${verb} ${table}`;
}

let installed = false;
/** Installs the two counters above on pg, once for this process. */
export function countPostgres(): void {
  if (installed) return;
  installed = true;
  {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- re-bound below with the client as `this`
    const query = pg.Client.prototype.query;
    const counting = function (this: pg.Client, ...args: unknown[]) {
      const first = args[0];
      const text =
        typeof first === 'string'
          ? first
          : typeof first === 'object' && first !== null && 'text' in first
            ? String(first.text)
            : '';
      const kind = statementKind(text);
      statements.set(kind, (statements.get(kind) ?? 0) + 1);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    };
    pg.Client.prototype.query = counting as typeof query;
  }
  {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- re-bound below with the pool as `this`
    const connect = pg.Pool.prototype.connect;
    const timed = function (this: pg.Pool, ...args: unknown[]) {
      const asked = performance.now();
      const done = () => {
        connections.taken++;
        connections.waitedMs += performance.now() - asked;
      };
      const callback = args[0];
      if (typeof callback === 'function') {
        return (connect as (...a: unknown[]) => unknown).call(this, (...results: unknown[]) => {
          done();
          return (callback as (...a: unknown[]) => unknown)(...results);
        });
      }
      return (connect as () => Promise<pg.PoolClient>).call(this).then((client) => {
        done();
        return client;
      });
    };
    pg.Pool.prototype.connect = timed as typeof connect;
  }
}

/** All the statements counted so far. */
export function statementCount(): number {
  return [...statements.values()].reduce((sum, n) => sum + n, 0);
}

export interface PgCounts {
  /** By kind (`begin`, `select documents`, …), the kinds with none left out. */
  statements: Map<string, number>;
  connections: { taken: number; waitedMs: number };
}

/** Starts reading the counters from now: the function returned gives what they counted since. */
export function pgCountsFrom(): () => PgCounts {
  const statementsBefore = new Map(statements);
  const connectionsBefore = { ...connections };
  return () => ({
    statements: new Map(
      [...statements]
        .map(([kind, count]) => [kind, count - (statementsBefore.get(kind) ?? 0)] as const)
        .filter(([, count]) => count > 0),
    ),
    connections: {
      taken: connections.taken - connectionsBefore.taken,
      waitedMs: connections.waitedMs - connectionsBefore.waitedMs,
    },
  });
}

/** Node's options that load the counters into a child process run with tsx. */
export const preloadPgCounters = ['--import', new URL('./pg-counters-preload.ts', import.meta.url).href];

/** A child's statement count so far (it preloads preloadPgCounters and prints the count on stderr); NaN after 5 s. */
export function statementsSent(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.stderr?.off('data', listen);
      resolve(Number.NaN);
    }, 5_000);
    const listen = (chunk: Buffer) => {
      const found = /statements=(\d+)/.exec(chunk.toString());
      if (found === null) return;
      clearTimeout(timer);
      child.stderr?.off('data', listen);
      resolve(Number(found[1]));
    };
    child.stderr?.on('data', listen);
    child.kill('SIGUSR2');
  });
}
