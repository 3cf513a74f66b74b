// DGII's authentication service (research/dgii-protocol.md §1.2, §3): GET a one-time seed, POST it back signed to
// get a bearer token valid one hour. The seed is served the way DGII serves it, with a BOM and indented, so a
// client must sign it as DGII reads it (whitespace-only text removed).
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseSemilla } from '../../fiscal/responses/semilla.js';
import { verifyEnvelopedSignature } from '../../fiscal/xmldsig/index.js';
import type { SandboxApp, SandboxContext } from '../http/context.js';
import { messageError, plainError } from '../http/dgii-replies.js';
import { sendDgiiReply } from '../http/reply-format.js';
import { dgiiRoute } from '../http/sandbox-route.js';
import { certificateFingerprint, certificateHolder, isDelegatedForAny, sha256Hex } from '../http/sessions.js';
import { readXmlUpload } from '../http/xml-upload.js';
import type { SandboxEnvironment } from '../state/schema.js';

/** How long a seed may wait to come back signed. DGII does not publish it; two minutes is ample for a client. */
export const seedLifetimeMs = 2 * 60_000;
/** DGII: "1 hora por el momento". */
export const tokenLifetimeMs = 60 * 60_000;

/** `2022-12-06T10:50:14.9682218-04:00`: the seed's fecha, in GMT-4 with 7 fraction digits like DGII's. */
export function seedDate(instant: Date): string {
  const local = new Date(instant.getTime() - 4 * 3_600_000);
  const iso = local.toISOString(); // yyyy-mm-ddThh:mm:ss.mmmZ
  return `${iso.slice(0, 23)}0000-04:00`;
}

/** Token dates: universal time, `yyyy-MM-ddTHH:mm:ssZ` (DT). */
function universal(instant: Date): string {
  return `${instant.toISOString().slice(0, 19)}Z`;
}

function seedXml(valor: string, fecha: string): string {
  return (
    '\uFEFF<?xml version="1.0" encoding="utf-8"?>\r\n' +
    '<SemillaModel xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">\r\n' +
    `  <valor>${valor}</valor>\r\n` +
    `  <fecha>${fecha}</fecha>\r\n` +
    '</SemillaModel>'
  );
}

/** A JWT like DGII's (HS256, issuer DGII.FE, audience USUARIOS.DGII.FE, the holder in `name`); opaque to clients. */
function issueToken(secret: string, holder: string, issued: Date, expires: Date): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const header = encode({ alg: 'HS256', typ: 'JWT' });
  const seconds = (instant: Date) => Math.floor(instant.getTime() / 1000);
  const payload = encode({
    name: holder,
    jti: randomUUID(),
    nbf: seconds(issued),
    exp: seconds(expires),
    iat: seconds(issued),
    iss: 'DGII.FE',
    aud: 'USUARIOS.DGII.FE',
  });
  const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}

async function tokenSecret(context: SandboxContext): Promise<string> {
  const existing = await context.db
    .selectFrom('sandbox_settings')
    .select('value')
    .where('key', '=', 'token_secret')
    .executeTakeFirst();
  if (typeof existing?.value === 'string') return existing.value;
  const secret = randomBytes(32).toString('base64url');
  await context.db
    .insertInto('sandbox_settings')
    .values({ key: 'token_secret', value: JSON.stringify(secret) })
    .onConflict((conflict) => conflict.column('key').doNothing())
    .execute();
  return tokenSecret(context);
}

async function issueSeed(
  context: SandboxContext,
  environment: SandboxEnvironment,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const now = context.clock.now();
  const valor = randomBytes(129).toString('base64'); // 172 characters, like DGII's
  await context.db
    .insertInto('sandbox_seeds')
    .values({
      value: valor,
      environment,
      issued_at: now,
      expires_at: new Date(now.getTime() + seedLifetimeMs),
      used_at: null,
    })
    .execute();
  return reply.type('text/xml; charset=utf-8').send(seedXml(valor, seedDate(now)));
}

async function validateSeed(
  context: SandboxContext,
  environment: SandboxEnvironment,
  upload: Buffer,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const seed = parseSemilla(upload);
  if (!seed.ok) return messageError(reply, 400, 'El archivo enviado no es una semilla válida.');
  const verified = verifyEnvelopedSignature(upload);
  if (!verified.ok) return messageError(reply, 400, 'La firma de la semilla no es válida.');
  const now = context.clock.now();
  // Taken in one statement: a seed serves once, even when two requests race with it.
  const taken = await context.db
    .updateTable('sandbox_seeds')
    .set({ used_at: now })
    .where('value', '=', seed.value.valor)
    .where('environment', '=', environment)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (taken.numUpdatedRows === 0n)
    return messageError(reply, 400, 'La semilla no es válida, ya fue utilizada o expiró.');

  const fingerprint = certificateFingerprint(verified.certificatePem);
  const holder = certificateHolder(verified.certificatePem);
  if (!(await isDelegatedForAny(context, fingerprint))) {
    return plainError(reply, 400, `El RNC ${holder} del certificado no está delegado para realizar transaciones.`);
  }
  const expires = new Date(now.getTime() + tokenLifetimeMs);
  const token = issueToken(await tokenSecret(context), holder, now, expires);
  await context.db
    .insertInto('sandbox_tokens')
    .values({
      token_sha256: sha256Hex(token),
      environment,
      certificate_sha256: fingerprint,
      holder,
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

export function authenticationRoutes(app: SandboxApp, context: SandboxContext): void {
  dgiiRoute(app, {
    method: 'GET',
    service: 'autenticacion',
    path: '/autenticacion/api/autenticacion/semilla',
    handler: (_request, reply, environment) => issueSeed(context, environment, reply),
  });
  dgiiRoute(app, {
    method: 'POST',
    service: 'autenticacion',
    path: '/autenticacion/api/autenticacion/validarsemilla',
    handler: async (request, reply, environment) => {
      const upload = await readXmlUpload(request);
      if (!upload.ok) return messageError(reply, upload.status, upload.mensaje);
      return validateSeed(context, environment, upload.xml, request, reply);
    },
  });
}
