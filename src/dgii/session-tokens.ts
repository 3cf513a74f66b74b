// DGII bearer tokens per company and environment. A token lives one hour (DT: "1 hora por el momento"; research
// §1.3) and DGII counts every seed exchange, so a token is fetched once and reused until shortly before it expires:
// in memory, and in the shared cache (Redis) so that the API, workers and scheduler reuse one token. Concurrent
// callers in a process share one in-flight fetch. A token DGII refuses (401) is dropped, and the next call fetches.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { SigningKey } from '../fiscal/xmldsig/index.js';
import type { Cache } from '../platform/cache/index.js';
import type { Clock } from '../platform/clock.js';
import type { Transient, Unauthorized } from './outcomes.js';

/** How a company authenticates: with its certificate (the client signs DGII's seed), or with a session it obtained by
 * signing a seed elsewhere (the client can use it until it expires, not renew it). */
export type DgiiCredentials =
  | { kind: 'certificate'; rnc: string; identity: SigningKey }
  | { kind: 'session'; rnc: string; token: string; expiresAt: Date };

export interface SessionToken {
  token: string;
  expiresAt: Date;
}

export type TokenResult = ({ kind: 'token' } & SessionToken) | Transient | Unauthorized;

/** The seed → signature → token exchange, done by the client over HTTP. */
export type TokenExchange = (identity: SigningKey) => Promise<TokenResult>;

export interface TokenStoreOptions {
  environment: string;
  clock: Clock;
  cache: Cache | undefined;
  log: Logger;
  /** A token is renewed this long before it expires, so no call goes out with a token about to die. */
  refreshMarginMs: number;
  exchange: TokenExchange;
  /** Seals tokens before they go to the shared cache (DGII's token is a credential: never stored in the clear). */
  sealing?: TokenSealing | undefined;
}

export interface TokenSealing {
  seal(text: string): string;
  /** Undefined when the value was not sealed with this key (another master key, or tampered with). */
  open(sealed: string): string | undefined;
}

export interface TokenStore {
  get(companyId: string, credentials: DgiiCredentials): Promise<TokenResult>;
  /** The fresh token this process holds for the company, if any (no credentials, no I/O). */
  held(companyId: string): SessionToken | undefined;
  /** A fresh exchange whatever is cached (the connection test); the result replaces the cached token. */
  renew(companyId: string, identity: SigningKey): Promise<TokenResult>;
  /** Drops `token` if it is still the one kept for the company (DGII answered 401 to it). */
  invalidate(companyId: string, token: string): Promise<void>;
}

/** How long a process waits for another one's token exchange (seed, signature, validarsemilla) before its own. */
const lockWaitMs = 5_000;
const lockPollMs = 50;
/** A lock left by a process that died mid-exchange frees itself. */
const lockTtlSeconds = 15;

function parseCached(value: string | undefined): SessionToken | undefined {
  if (value === undefined) return undefined;
  try {
    const parsed = JSON.parse(value) as { token?: unknown; expiresAt?: unknown };
    if (typeof parsed.token !== 'string' || typeof parsed.expiresAt !== 'string') return undefined;
    const expiresAt = new Date(parsed.expiresAt);
    return Number.isNaN(expiresAt.getTime()) ? undefined : { token: parsed.token, expiresAt };
  } catch {
    return undefined;
  }
}

export function createTokenStore(options: TokenStoreOptions): TokenStore {
  const { clock, cache, log } = options;
  const memory = new Map<string, SessionToken>();
  const inFlight = new Map<string, Promise<TokenResult>>();
  const keyOf = (companyId: string) => `dgii:token:${options.environment}:${companyId}`;
  const fresh = (token: SessionToken | undefined): token is SessionToken =>
    token !== undefined && token.expiresAt.getTime() - options.refreshMarginMs > clock.now().getTime();

  async function keep(key: string, token: SessionToken): Promise<void> {
    memory.set(key, token);
    if (cache === undefined) return;
    const ttlSeconds = Math.floor((token.expiresAt.getTime() - options.refreshMarginMs - clock.now().getTime()) / 1000);
    if (ttlSeconds < 1) return;
    try {
      const value = JSON.stringify({ token: token.token, expiresAt: token.expiresAt.toISOString() });
      await cache.set(key, options.sealing === undefined ? value : options.sealing.seal(value), ttlSeconds);
    } catch (error) {
      // The shared cache is an optimisation: without it each process fetches its own token.
      log.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'DGII token: the shared cache refused the token',
      );
    }
  }

  async function readShared(key: string): Promise<SessionToken | undefined> {
    const raw = await cache?.get(key);
    if (raw === undefined || options.sealing === undefined) return parseCached(raw);
    const opened = options.sealing.open(raw);
    return opened === undefined ? undefined : parseCached(opened);
  }

  async function fromCache(key: string): Promise<SessionToken | undefined> {
    if (cache === undefined) return undefined;
    try {
      const cached = await readShared(key);
      return fresh(cached) ? cached : undefined;
    } catch {
      return undefined;
    }
  }

  /** Another process holds the lock and is fetching: its token, once it is in the cache (or undefined after a while). */
  async function awaitShared(key: string): Promise<SessionToken | undefined> {
    for (let waited = 0; waited < lockWaitMs; waited += lockPollMs) {
      await sleep(lockPollMs);
      const shared = await fromCache(key);
      if (shared !== undefined) return shared;
    }
    return undefined;
  }

  async function fetchFor(companyId: string, identity: SigningKey, useCache: boolean): Promise<TokenResult> {
    const key = keyOf(companyId);
    let locked = false;
    if (useCache && cache !== undefined) {
      let shared = await fromCache(key);
      // One exchange across processes too: whoever takes the lock fetches, the others wait for its token.
      if (shared === undefined) {
        locked = await cache.setIfAbsent(`${key}:lock`, '1', lockTtlSeconds).catch(() => true);
        if (!locked) shared = await awaitShared(key);
      }
      if (shared !== undefined) {
        memory.set(key, shared);
        return { kind: 'token', ...shared };
      }
    }
    try {
      const result = await options.exchange(identity);
      if (result.kind === 'token') {
        await keep(key, { token: result.token, expiresAt: result.expiresAt });
        log.info(
          { companyId, environment: options.environment, expiresAt: result.expiresAt.toISOString() },
          'DGII token obtained',
        );
      }
      return result;
    } finally {
      if (locked) await cache?.delete(`${key}:lock`).catch(() => undefined);
    }
  }

  function singleFlight(companyId: string, identity: SigningKey, useCache: boolean): Promise<TokenResult> {
    const key = keyOf(companyId);
    const pending = inFlight.get(key);
    if (pending !== undefined) return pending;
    const started = fetchFor(companyId, identity, useCache).finally(() => inFlight.delete(key));
    inFlight.set(key, started);
    return started;
  }

  return {
    async get(companyId, credentials) {
      if (credentials.kind === 'session') {
        if (credentials.expiresAt.getTime() <= clock.now().getTime())
          return { kind: 'unauthorized', reason: 'session_expired', messages: [] };
        return { kind: 'token', token: credentials.token, expiresAt: credentials.expiresAt };
      }
      const kept = memory.get(keyOf(companyId));
      if (fresh(kept)) return { kind: 'token', ...kept };
      return singleFlight(companyId, credentials.identity, true);
    },
    held(companyId) {
      const kept = memory.get(keyOf(companyId));
      return fresh(kept) ? kept : undefined;
    },
    renew(companyId, identity) {
      return singleFlight(companyId, identity, false);
    },
    async invalidate(companyId, token) {
      const key = keyOf(companyId);
      if (memory.get(key)?.token === token) memory.delete(key);
      if (cache === undefined) return;
      try {
        if ((await readShared(key))?.token === token) await cache.delete(key);
      } catch {
        // Best effort: the cached entry expires on its own.
      }
    },
  };
}
