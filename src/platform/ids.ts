// Public ids are prefixed by what they name (`cmp_…`, `key_…`) and random, so they leak no counts or times.
import { randomBytes, randomFillSync } from 'node:crypto';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Unbiased base62 from the CSPRNG (bytes ≥ 248 are rejected so every character is equally likely). */
export function randomBase62(length: number, nextByte: () => number = freshBytes(length)): string {
  let out = '';
  while (out.length < length) {
    const byte = nextByte();
    if (byte < 248) out += alphabet.charAt(byte % 62);
  }
  return out;
}

/** Bytes drawn for one string alone: what secrets (API keys) are made of. */
function freshBytes(length: number): () => number {
  let bytes = randomBytes(length * 2);
  let offset = 0;
  return () => {
    if (offset === bytes.length) {
      bytes = randomBytes(length);
      offset = 0;
    }
    return bytes[offset++] ?? 0;
  };
}

// Ids name things and are no secret: they come from a pool the CSPRNG fills 4 KB at a time (as Node's randomUUID
// does), since a call to the CSPRNG per id cost a document's creation 2 % of its main-thread time (issue 47).
const pool = Buffer.alloc(4096);
let pooled = pool.length;

function pooledByte(): number {
  if (pooled === pool.length) {
    randomFillSync(pool);
    pooled = 0;
  }
  return pool[pooled++] ?? 0;
}

export type IdPrefix =
  | 'cmp'
  | 'crt'
  | 'key'
  | 'evt'
  | 'rng'
  | 'doc'
  | 'alc'
  | 'fjb'
  | 'lse'
  | 'anl'
  | 'rcv'
  | 'cpr'
  | 'cfm'
  | 'whk'
  | 'msg'
  | 'afn'
  | 'aps';

/** Characters after the prefix: 20 (119 random bits), but webhook deliveries (`msg_…`) have always had 24. */
const randomLengths: Partial<Record<IdPrefix, number>> = { msg: 24 };

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(randomLengths[prefix] ?? 20, pooledByte)}`;
}
