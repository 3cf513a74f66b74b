// The receiver's own authentication (DT "Estándar de comunicación Emisor-Receptor"; research/dgii-protocol.md
// §6.1): GET a one-time seed, POST it back signed for a token valid one hour. The token format is the receiver's
// choice: 32 random bytes; only its SHA-256 is kept, in the shared cache (Redis or memory), with the company it
// opens and its expiry. Any certificate may sign the seed (DGII names no trust list for senders); the seed must be
// one this service issued for the same company, unused and fresh. Seeds and tokens live in the cache: their
// lifetimes are short, and a lost cache only means the sender authenticates again.
import { createHash, randomBytes } from 'node:crypto';
import type { ReceiverAuthMode } from '../../config.js';
import { buildSemilla, parseSemilla } from '../../fiscal/responses/semilla.js';
import { verifyEnvelopedSignature } from '../../fiscal/xmldsig/index.js';
import type { Cache } from '../../platform/cache/index.js';
import type { Clock } from '../../platform/clock.js';
import { RecentReads, recentReadMs } from '../../platform/recent-reads.js';

/** How long a seed may wait to come back signed (DGII publishes no value for its own; two minutes is ample). */
export const seedLifetimeMs = 2 * 60_000;
/** The standard's example and DGII's own: one hour. */
export const tokenLifetimeMs = 60 * 60_000;

export interface ReceiverToken {
  token: string;
  /** `yyyy-MM-ddTHH:mm:ssZ` (DT). */
  expira: string;
  expedido: string;
}

export type SeedCheck = { ok: true; token: ReceiverToken } | { ok: false; mensaje: string };

/** `yyyy-MM-ddTHH:mm:ssZ`, the universal format the standard asks for. */
function universal(instant: Date): string {
  return `${instant.toISOString().slice(0, 19)}Z`;
}

/** The seed's fecha like DGII's: GMT-4, seven fraction digits. */
function seedDate(instant: Date): string {
  const local = new Date(instant.getTime() - 4 * 3_600_000).toISOString();
  return `${local.slice(0, 23)}0000-04:00`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

const seedKey = (companyId: string, valor: string) => `receiver:seed:${sha256(`${companyId}\n${valor}`)}`;
const seedUsedKey = (companyId: string, valor: string) => `receiver:seed-used:${sha256(`${companyId}\n${valor}`)}`;
const tokenKey = (token: string) => `receiver:token:${sha256(token)}`;

export interface ReceiverAuth {
  issueSeed(companyId: string): Promise<string>;
  /** The signed seed exchanged for a token: signature verifies, seed issued here for this company, unused, fresh. */
  validateSeed(companyId: string, signed: Buffer): Promise<SeedCheck>;
  /** Whether a POST to a receiver route of this company may go on, given its Authorization header. */
  admits(companyId: string, authorization: string | undefined): Promise<boolean>;
}

/** What a token opens, as validateSeed stored it. */
interface Grant {
  companyId: string;
  expiresAt: number;
}

export function createReceiverAuth(deps: { cache: Cache; clock: Clock; mode: ReceiverAuthMode }): ReceiverAuth {
  const { cache, clock, mode } = deps;
  // A sender posts every e-CF with its token: what the token opens is kept here a moment rather than read from the
  // shared cache per request. Nothing changes a stored token before it expires, and expiry is checked on every call.
  const recentGrants = new RecentReads<Grant>(recentReadMs, (grant) => grant.companyId);

  async function storedGrant(key: string): Promise<Grant | undefined> {
    const stored = await cache.get(key);
    if (stored === undefined) return undefined;
    try {
      const { companyId, expiresAt } = JSON.parse(stored) as { companyId: unknown; expiresAt: unknown };
      return typeof companyId === 'string' && typeof expiresAt === 'number' ? { companyId, expiresAt } : undefined;
    } catch {
      return undefined;
    }
  }

  return {
    async issueSeed(companyId) {
      const now = clock.now();
      const valor = randomBytes(96).toString('base64');
      const seed = buildSemilla({ valor, fecha: seedDate(now) });
      if (!seed.ok) throw new Error('the receiver built an invalid seed');
      await cache.set(
        seedKey(companyId, valor),
        String(now.getTime() + seedLifetimeMs),
        Math.ceil(seedLifetimeMs / 1_000),
      );
      return seed.xml;
    },

    async validateSeed(companyId, signed) {
      const seed = parseSemilla(signed);
      if (!seed.ok) return { ok: false, mensaje: 'El archivo enviado no es una semilla válida.' };
      if (!verifyEnvelopedSignature(signed).ok) return { ok: false, mensaje: 'La firma de la semilla no es válida.' };
      const { valor } = seed.value;
      const now = clock.now();
      const expires = await cache.get(seedKey(companyId, valor));
      const fresh = expires !== undefined && Number(expires) > now.getTime();
      // Taken once: of two requests racing with one seed, only the first sets the mark.
      if (
        !fresh ||
        !(await cache.setIfAbsent(seedUsedKey(companyId, valor), '1', Math.ceil(seedLifetimeMs / 1_000) + 60))
      ) {
        return { ok: false, mensaje: 'La semilla no es válida, ya fue utilizada o expiró.' };
      }
      await cache.delete(seedKey(companyId, valor));
      const token = randomBytes(32).toString('base64url');
      const expiresAt = new Date(now.getTime() + tokenLifetimeMs);
      await cache.set(
        tokenKey(token),
        JSON.stringify({ companyId, expiresAt: expiresAt.getTime() }),
        Math.ceil(tokenLifetimeMs / 1_000),
      );
      return { ok: true, token: { token, expira: universal(expiresAt), expedido: universal(now) } };
    },

    async admits(companyId, authorization) {
      if (mode === 'disabled') return true;
      if (authorization === undefined || authorization.trim() === '') return mode === 'optional';
      // A token that is given must be good, whatever the mode.
      const match = /^bearer\s+(\S+)\s*$/i.exec(authorization);
      if (match?.[1] === undefined) return false;
      const key = tokenKey(match[1]);
      const grant = await recentGrants.read(key, () => storedGrant(key));
      return grant !== undefined && grant.companyId === companyId && grant.expiresAt > clock.now().getTime();
    },
  };
}
