// DGII sessions: a bearer token from validarsemilla, tied to the certificate that signed the seed. What the holder
// may do is decided per request by delegation: the certificate must be delegated for the RNC it acts for
// (research/dgii-protocol.md §1.3), unless that taxpayer accepts any certificate (demos).
import { createHash, X509Certificate } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { SandboxEnvironment } from '../state/schema.js';
import type { SandboxContext } from './context.js';

export interface Session {
  certificateSha256: string;
  holder: string;
}

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** SHA-256 of a PEM certificate's DER, lower-case hex (the key delegations are stored under). */
export function certificateFingerprint(certificatePem: string): string {
  return sha256Hex(new X509Certificate(certificatePem).raw);
}

/** The holder's identifier: the subject's serialNumber (a cédula, RNC or passport), else its common name. */
export function certificateHolder(certificatePem: string): string {
  const subject = new X509Certificate(certificatePem).subject;
  const field = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(subject)?.[1];
  return field('serialNumber') ?? field('CN') ?? 'desconocido';
}

/** The session of a request's bearer token in this environment; undefined when absent, unknown or expired. */
export async function sessionOf(context: SandboxContext, request: FastifyRequest, environment: SandboxEnvironment): Promise<Session | undefined> {
  const match = /^bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (match?.[1] === undefined) return undefined;
  const row = await context.db
    .selectFrom('sandbox_tokens')
    .select(['certificate_sha256', 'holder'])
    .where('token_sha256', '=', sha256Hex(match[1]))
    .where('environment', '=', environment)
    .where('expires_at', '>', context.clock.now())
    .executeTakeFirst();
  return row === undefined ? undefined : { certificateSha256: row.certificate_sha256, holder: row.holder };
}

/** Whether a certificate may act for a taxpayer: delegated to it, or the taxpayer accepts any certificate. */
export async function isDelegated(context: SandboxContext, certificateSha256: string, rnc: string): Promise<boolean> {
  const taxpayer = await context.db.selectFrom('sandbox_taxpayers').select('accept_any_certificate').where('rnc', '=', rnc).executeTakeFirst();
  if (taxpayer === undefined) return false;
  if (taxpayer.accept_any_certificate) return true;
  const delegation = await context.db
    .selectFrom('sandbox_delegations')
    .select('rnc')
    .where('rnc', '=', rnc)
    .where('certificate_sha256', '=', certificateSha256)
    .executeTakeFirst();
  return delegation !== undefined;
}

/** Whether a certificate may act for at least one registered taxpayer (what validarsemilla requires). */
export async function isDelegatedForAny(context: SandboxContext, certificateSha256: string): Promise<boolean> {
  const open = await context.db.selectFrom('sandbox_taxpayers').select('rnc').where('accept_any_certificate', '=', true).executeTakeFirst();
  if (open !== undefined) return true;
  const delegation = await context.db.selectFrom('sandbox_delegations').select('rnc').where('certificate_sha256', '=', certificateSha256).executeTakeFirst();
  return delegation !== undefined;
}
