// `ecf_<env>_<lookup>_<secret><checksum>`: the prefix names the environment; `_` separators so a
// double-click selects the whole key; the lookup part finds the row; a CRC-32 checksum lets us (and secret
// scanners) reject a mistyped key without touching the database (research/anchors.md §4.3).
import { crc32 } from 'node:zlib';
import type { FiscalEnvironment } from '../../config.js';
import { randomBase62 } from '../../platform/ids.js';

const environmentTags = { TEST: 'test', CERT: 'cert', PRODUCTION: 'live' } as const satisfies Record<
  FiscalEnvironment,
  string
>;
const keyPattern = /^ecf_(test|cert|live)_([0-9A-Za-z]{16})_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;
const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function checksum(body: string): string {
  let value = crc32(body);
  let out = '';
  for (let i = 0; i < 6; i++) {
    out = alphabet.charAt(value % 62) + out;
    value = Math.floor(value / 62);
  }
  return out;
}

export interface ParsedApiKey {
  environment: FiscalEnvironment;
  lookup: string;
}

export function generateApiKey(environment: FiscalEnvironment): { key: string; lookup: string } {
  const lookup = randomBase62(16);
  const body = `ecf_${environmentTags[environment]}_${lookup}_${randomBase62(32)}`;
  return { key: `${body}${checksum(body)}`, lookup };
}

/** Undefined when the text is not a well-formed key (wrong shape or checksum). */
export function parseApiKey(text: string): ParsedApiKey | undefined {
  const match = keyPattern.exec(text);
  if (match === null) return undefined;
  const [, tag, lookup, secret, sum] = match;
  if (tag === undefined || lookup === undefined || secret === undefined || sum === undefined) return undefined;
  if (checksum(`ecf_${tag}_${lookup}_${secret}`) !== sum) return undefined;
  const environment = (Object.keys(environmentTags) as FiscalEnvironment[]).find((env) => environmentTags[env] === tag);
  return environment === undefined ? undefined : { environment, lookup };
}

export function keyIdFor(lookup: string): string {
  return `key_${lookup}`;
}

/** What lists show: enough to recognise a key, not to use it. */
export function displayPrefix(key: string): string {
  return `${key.slice(0, 'ecf_test_'.length + 6)}…`;
}
