// DGII's directory of electronic receivers (consultadirectorio), asked with the caller's company's DGII session and
// cached for every company (the answer is public): the taxpayer lookup shows it, and the deliveries to buyers and to
// issuers find their receivers' URLs in it. A listed number is kept for the TTL, a number not listed for a sixth of
// it (a taxpayer may be authorised any day). A failure is not cached for the number; instead the company's
// questions leave DGII alone for a little while, so a run of lookups neither waits on DGII each time nor hammers it.
// An answer is also kept in this process for recentReadMs: a run of deliveries to one buyer asked the shared cache
// twice per delivery (measured: 0.2 ms of the app's CPU each, and Redis's).
import type { DirectoryEntry, DirectoryOutcome } from '../../dgii/index.js';
import type { Cache } from '../../platform/cache/index.js';
import type { Clock } from '../../platform/clock.js';
import { RecentReads, recentReadMs } from '../../platform/recent-reads.js';

export type DirectoryAnswer =
  | { kind: 'found'; entry: DirectoryEntry }
  | { kind: 'not_found' }
  /** DGII did not answer (or the company has no DGII session): ask again later. */
  | { kind: 'unknown'; detail: string };

export interface Directory {
  lookup(rnc: string, companyId: string): Promise<DirectoryAnswer>;
  /** Drops what is kept of `rnc`: its entry changed where we can see it (the embedded sandbox's registry). */
  forget(rnc: string): Promise<void>;
}

/** After DGII's directory failed for a company, how long its lookups answer without asking it. */
const pauseSeconds = 30;

function describe(outcome: Exclude<DirectoryOutcome, { kind: 'found' } | { kind: 'not_found' }>): string {
  switch (outcome.kind) {
    case 'transient':
      return `${outcome.reason}: ${outcome.detail}`;
    case 'unauthorized':
      return `DGII refused the company's authentication (${outcome.reason})`;
    case 'no_credentials':
      return 'the company has no certificate nor DGII session to ask DGII with';
  }
}

export function cachedDirectory(deps: {
  /** DGII's client's directory call. */
  source: (companyId: string, rnc: string) => Promise<DirectoryOutcome>;
  cache: Cache;
  /** Times what this process keeps (the shared cache keeps its own time). */
  clock: Clock;
  /**
   * Which DGII the answers are from (its environment and base URL): each environment keeps its own directory, and
   * instances of several environments may share one cache.
   */
  namespace: string;
  /** How long a listed number's entry is reused (default 6 h). */
  ttlSeconds?: number;
}): Directory {
  const ttl = deps.ttlSeconds ?? 6 * 3_600;
  const keyOf = (rnc: string) => `taxpayers:directory:${deps.namespace}:${rnc}`;
  const recent = new RecentReads<DirectoryAnswer>(
    recentReadMs,
    () => 'directory',
    undefined,
    () => deps.clock.now().getTime(),
  );

  async function ask(rnc: string, companyId: string): Promise<DirectoryAnswer> {
    const key = keyOf(rnc);
    const pausedKey = `taxpayers:directory-paused:${companyId}`;
    const [cached, paused] = await Promise.all([deps.cache.get(key), deps.cache.get(pausedKey)]);
    if (cached !== undefined) {
      const entry = JSON.parse(cached) as DirectoryEntry | null;
      return entry === null ? { kind: 'not_found' } : { kind: 'found', entry };
    }
    if (paused !== undefined)
      return { kind: 'unknown', detail: `DGII's directory failed a moment ago (${paused}); asked again shortly` };
    let outcome: DirectoryOutcome;
    try {
      outcome = await deps.source(companyId, rnc);
    } catch (error) {
      outcome = {
        kind: 'transient',
        reason: 'network',
        detail: error instanceof Error ? error.message : String(error),
      };
    }
    if (outcome.kind === 'found') {
      await deps.cache.set(key, JSON.stringify(outcome.entry), ttl);
      return { kind: 'found', entry: outcome.entry };
    }
    if (outcome.kind === 'not_found') {
      await deps.cache.set(key, 'null', Math.max(1, Math.floor(ttl / 6)));
      return { kind: 'not_found' };
    }
    const detail = describe(outcome);
    await deps.cache.set(pausedKey, detail, pauseSeconds);
    return { kind: 'unknown', detail: `DGII's directory did not answer (${detail})` };
  }

  return {
    async forget(rnc) {
      recent.forget(rnc);
      await deps.cache.delete(keyOf(rnc));
    },

    async lookup(rnc, companyId) {
      // A DGII that did not answer is not kept: the next lookup asks again (or meets the company's pause).
      let unknown: DirectoryAnswer | undefined;
      const known = await recent.read(rnc, async () => {
        const answer = await ask(rnc, companyId);
        if (answer.kind !== 'unknown') return answer;
        unknown = answer;
        return undefined;
      });
      return known ?? unknown ?? { kind: 'unknown', detail: "DGII's directory did not answer" };
    },
  };
}
