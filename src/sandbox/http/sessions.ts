// DGII sessions: a bearer token from validarsemilla, tied to the certificate that signed the seed. What the holder
// may do is decided per request by delegation: the certificate must be delegated for the RNC it acts for
// (research/dgii-protocol.md §1.3), unless that taxpayer accepts any certificate (demos).
import { createHash, X509Certificate } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { SandboxEnvironment } from '../state/schema.js';
import { remembered } from '../state/state-cache.js';
import { hasDelegation, taxpayerStanding } from '../state/taxpayers.js';
import type { SandboxContext } from './context.js';

export interface Session {
  certificateSha256: string;
  holder: string;
}

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Fingerprints already computed, by PEM: every signed document carries its signer's certificate, nearly always the same few. */
const fingerprints = new Map<string, string>();
const maxFingerprints = 1_000;

/** SHA-256 of a PEM certificate's DER, lower-case hex (the key delegations are stored under). */
export function certificateFingerprint(certificatePem: string): string {
  let fingerprint = fingerprints.get(certificatePem);
  if (fingerprint === undefined) {
    fingerprint = sha256Hex(new X509Certificate(certificatePem).raw);
    if (fingerprints.size >= maxFingerprints) fingerprints.clear();
    fingerprints.set(certificatePem, fingerprint);
  }
  return fingerprint;
}

/** The holder's identifier: the subject's serialNumber (a cédula, RNC or passport), else its common name. */
export function certificateHolder(certificatePem: string): string {
  const subject = new X509Certificate(certificatePem).subject;
  const field = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(subject)?.[1];
  return field('serialNumber') ?? field('CN') ?? 'desconocido';
}

/**
 * The session of a request's bearer token in this environment; undefined when absent, unknown or expired. Known
 * tokens are remembered (state-cache.ts); an unknown one is asked for again each time, as another process may
 * have issued it.
 */
export async function sessionOf(
  context: SandboxContext,
  request: FastifyRequest,
  environment: SandboxEnvironment,
): Promise<Session | undefined> {
  const match = /^bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (match?.[1] === undefined) return undefined;
  const tokenSha256 = sha256Hex(match[1]);
  const row = await remembered(context.db, `token:${environment}:${tokenSha256}`, () =>
    context.db
      .selectFrom('sandbox_tokens')
      .select(['certificate_sha256', 'holder', 'expires_at'])
      .where('token_sha256', '=', tokenSha256)
      .where('environment', '=', environment)
      .executeTakeFirst(),
  );
  if (row === undefined || row.expires_at.getTime() <= context.clock.now().getTime()) return undefined;
  return { certificateSha256: row.certificate_sha256, holder: row.holder };
}

/** Whether a certificate may act for a taxpayer: delegated to it, or the taxpayer accepts any certificate. */
export async function isDelegated(context: SandboxContext, certificateSha256: string, rnc: string): Promise<boolean> {
  const taxpayer = await taxpayerStanding(context.db, rnc);
  if (taxpayer === undefined) return false;
  if (taxpayer.accept_any_certificate) return true;
  return hasDelegation(context.db, rnc, certificateSha256);
}

/** Whether a certificate may act for at least one registered taxpayer (what validarsemilla requires). */
export async function isDelegatedForAny(context: SandboxContext, certificateSha256: string): Promise<boolean> {
  const open = await context.db
    .selectFrom('sandbox_taxpayers')
    .select('rnc')
    .where('accept_any_certificate', '=', true)
    .executeTakeFirst();
  if (open !== undefined) return true;
  const delegation = await context.db
    .selectFrom('sandbox_delegations')
    .select('rnc')
    .where('certificate_sha256', '=', certificateSha256)
    .executeTakeFirst();
  return delegation !== undefined;
}
