// The counterpart's own authentication, as the receiver standard defines it (DT "Estándar de comunicación
// Emisor-Receptor"; research/dgii-protocol.md §6.1): GET a seed, POST it back signed for a token. The token format
// is the receiver's choice; any certificate may authenticate (the receiver decides whom it trusts), and the holder
// is recorded with the token.
//
// The counterpart shares DGII's seed and token tables, but must not share its sessions: a seed or token of the
// counterpart must never open DGII's services, nor the reverse. So its rows are stored under a prefix DGII's
// lookups never produce: a seed's value as `emisorreceptor:<valor>`, a token under SHA-256 of
// `emisorreceptor:<token>` (DGII's rows hold the bare valor and SHA-256 of the bare token).
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { buildSemilla, parseSemilla } from '../../fiscal/responses/semilla.js';
import { verifyEnvelopedSignature } from '../../fiscal/xmldsig/index.js';
import type { SandboxContext } from '../http/context.js';
import { messageError } from '../http/dgii-replies.js';
import { sendDgiiReply } from '../http/reply-format.js';
import { certificateFingerprint, certificateHolder, sha256Hex, type Session } from '../http/sessions.js';
import { readXmlUpload } from '../http/xml-upload.js';
import type { SandboxEnvironment } from '../state/schema.js';
import { seedDate, seedLifetimeMs, tokenLifetimeMs } from '../services/authentication.js';

const counterpartPrefix = 'emisorreceptor:';

function tokenKey(token: string): string {
  return sha256Hex(`${counterpartPrefix}${token}`);
}

/** `yyyy-MM-ddTHH:mm:ssZ`, the universal format the standard asks for. */
function universal(instant: Date): string {
  return `${instant.toISOString().slice(0, 19)}Z`;
}

export async function issueCounterpartSeed(
  context: SandboxContext,
  environment: SandboxEnvironment,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const now = context.clock.now();
  const valor = randomBytes(129).toString('base64');
  const seed = buildSemilla({ valor, fecha: seedDate(now) });
  if (!seed.ok) throw new Error('the counterpart built an invalid seed');
  await context.db
    .insertInto('sandbox_seeds')
    .values({
      value: `${counterpartPrefix}${valor}`,
      environment,
      issued_at: now,
      expires_at: new Date(now.getTime() + seedLifetimeMs),
      used_at: null,
    })
    .execute();
  return reply.type('application/xml; charset=utf-8').send(seed.xml);
}

export async function validateCounterpartSeed(
  context: SandboxContext,
  environment: SandboxEnvironment,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const upload = await readXmlUpload(request);
  if (!upload.ok) return messageError(reply, upload.status, upload.mensaje);
  const seed = parseSemilla(upload.xml);
  if (!seed.ok) return messageError(reply, 400, 'El archivo enviado no es una semilla válida.');
  const verified = verifyEnvelopedSignature(upload.xml);
  if (!verified.ok) return messageError(reply, 400, 'La firma de la semilla no es válida.');
  const now = context.clock.now();
  // One statement: a seed serves once even when two requests race with it.
  const taken = await context.db
    .updateTable('sandbox_seeds')
    .set({ used_at: now })
    .where('value', '=', `${counterpartPrefix}${seed.value.valor}`)
    .where('environment', '=', environment)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (taken.numUpdatedRows === 0n)
    return messageError(reply, 400, 'La semilla no es válida, ya fue utilizada o expiró.');

  const expires = new Date(now.getTime() + tokenLifetimeMs);
  const token = randomBytes(48).toString('base64url');
  await context.db
    .insertInto('sandbox_tokens')
    .values({
      token_sha256: tokenKey(token),
      environment,
      certificate_sha256: certificateFingerprint(verified.certificatePem),
      holder: certificateHolder(verified.certificatePem),
      issued_at: now,
      expires_at: expires,
    })
    .execute();
  return sendDgiiReply(request, reply, 200, 'RespuestaAutenticacion', {
    token,
    expira: universal(expires),
    expedido: universal(now),
  });
}

/**
 * The caller's standing at the counterpart's receiving routes: authentication is optional for a sender (the
 * standard makes it conditional on the receiver declaring it), so no header is fine, but a token that is given
 * must be one the counterpart issued and still valid.
 */
export async function counterpartCaller(
  context: SandboxContext,
  request: FastifyRequest,
  environment: SandboxEnvironment,
): Promise<{ ok: true; session: Session | undefined } | { ok: false }> {
  const header = request.headers.authorization;
  if (header === undefined || header.trim() === '') return { ok: true, session: undefined };
  const match = /^bearer\s+(\S+)\s*$/i.exec(header);
  if (match?.[1] === undefined) return { ok: false };
  const row = await context.db
    .selectFrom('sandbox_tokens')
    .select(['certificate_sha256', 'holder'])
    .where('token_sha256', '=', tokenKey(match[1]))
    .where('environment', '=', environment)
    .where('expires_at', '>', context.clock.now())
    .executeTakeFirst();
  return row === undefined
    ? { ok: false }
    : { ok: true, session: { certificateSha256: row.certificate_sha256, holder: row.holder } };
}
