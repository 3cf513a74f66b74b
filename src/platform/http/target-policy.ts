// Where the service may call on a tenant's or taxpayer's behalf (webhooks, buyers' receivers, issuers' approval URLs: SSRF): HTTPS only in PRODUCTION, and never to an address a tenant should not reach
// through us (loopback, private, link-local, cloud metadata, CGNAT, multicast, reserved), checked on every address
// the host resolves to, at creation and again at delivery, unless the operator allows private targets.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import type { FiscalEnvironment } from '../../config.js';

const refused = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, and the cloud metadata service 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and broadcast
] as const)
  refused.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64 of IPv4 addresses
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7], // unique local (AWS's metadata service fd00:ec2::254 among them)
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  refused.addSubnet(network, prefix, 'ipv6');

/** Why an address may not be a webhook target; undefined when it may. */
export function refusedAddressReason(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  // An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is its IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped !== undefined) return refusedAddressReason(mapped);
  const blocked = family === 4 ? refused.check(address, 'ipv4') : refused.check(address, 'ipv6');
  return blocked ? `${address} is a loopback, private, link-local, metadata or reserved address` : undefined;
}

export interface TargetPolicy {
  environment: FiscalEnvironment;
  allowPrivate: boolean;
}

/** Why a URL may not be a webhook target (scheme, credentials); the address is checked on resolution. */
export function urlProblem(raw: string, policy: TargetPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `must use https (got ${url.protocol})`;
  if (policy.environment === 'PRODUCTION' && url.protocol !== 'https:') return 'must use https in PRODUCTION';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (url.hash !== '') return 'must not carry a fragment';
  return undefined;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address the host resolves to (an IP literal is itself), or why it cannot be reached. */
export async function resolveTarget(
  hostname: string,
  policy: TargetPolicy,
): Promise<{ ok: true; addresses: ResolvedAddress[] } | { ok: false; reason: string }> {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  let addresses: ResolvedAddress[];
  if (isIP(host) !== 0) {
    addresses = [{ address: host, family: isIP(host) as 4 | 6 }];
  } else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((entry) => ({
        address: entry.address,
        family: entry.family as 4 | 6,
      }));
    } catch (error) {
      return {
        ok: false,
        reason: `${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'DNS error'})`,
      };
    }
  }
  if (addresses.length === 0) return { ok: false, reason: `${host} does not resolve` };
  if (!policy.allowPrivate) {
    // Every address, not just the first: a host may answer a public and a private address in turn.
    for (const entry of addresses) {
      const reason = refusedAddressReason(entry.address);
      if (reason !== undefined) return { ok: false, reason: `${host} resolves to ${reason}` };
    }
  }
  return { ok: true, addresses };
}
