// Public ids are prefixed by what they name (`cmp_…`, `key_…`) and random, so they leak no counts or times.
import { randomBytes } from 'node:crypto';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Unbiased base62 from the CSPRNG (bytes ≥ 248 are rejected so every character is equally likely). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += alphabet.charAt(byte % 62);
    }
  }
  return out;
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
  return `${prefix}_${randomBase62(randomLengths[prefix] ?? 20)}`;
}
