// The counterpart calling a taxpayer's receiver, as DGII's simulator does: the URLs it is given are bases (as in
// DGII's directory) to which the standard paths are appended; authentication first when an authentication URL is
// given (seed → signed with the counterpart's key → token); documents as multipart `xml` with a Content-Length.
import { signXml, type SigningKey } from '../../fiscal/xmldsig/index.js';
import type { SandboxContext } from '../http/context.js';

/** How long the counterpart waits for a receiver: DGII does not say; long enough for a slow host, short for a test. */
export const receiverTimeoutMs = 10_000;

export const standardPaths = {
  semilla: '/fe/autenticacion/api/semilla',
  validacionCertificado: '/fe/autenticacion/api/validacioncertificado',
  recepcion: '/fe/recepcion/api/ecf',
  aprobacionComercial: '/fe/aprobacioncomercial/api/ecf',
} as const;

/** An http(s) URL, or undefined. */
export function httpUrl(value: unknown): URL | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  try {
    const url = new URL(value.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The standard endpoint under a base URL. A base that already ends with the endpoint's service part (e.g. a
 * urlAutenticacion given as `https://host/fe/autenticacion`) or with the whole path is not repeated.
 */
export function endpointUrl(base: URL, path: string): string {
  const trimmed = base.href.replace(/\/+$/, '');
  const lower = trimmed.toLowerCase();
  if (lower.endsWith(path.toLowerCase())) return trimmed;
  const service = path.split('/api/')[0] ?? path;
  if (lower.endsWith(service.toLowerCase())) return `${trimmed}${path.slice(service.length)}`;
  return `${trimmed}${path}`;
}

export type Sent = { ok: true; status: number; body: string } | { ok: false; message: string };

async function send(context: SandboxContext, url: string, init: RequestInit): Promise<Sent> {
  try {
    const response = await context.fetch(url, { ...init, signal: AbortSignal.timeout(receiverTimeoutMs) });
    return { ok: true, status: response.status, body: await response.text() };
  } catch (error) {
    const reason =
      error instanceof Error
        ? error.name === 'TimeoutError'
          ? `sin respuesta en ${String(receiverTimeoutMs / 1000)} s`
          : error.message
        : String(error);
    return { ok: false, message: `No se pudo comunicar con ${url}: ${reason}.` };
  }
}

export function postXml(
  context: SandboxContext,
  url: string,
  xml: string,
  filename: string,
  token: string | undefined,
): Promise<Sent> {
  // A FormData of Blobs has a known length, so fetch sends a Content-Length (DGII-like receivers require one).
  const form = new FormData();
  form.append('xml', new Blob([xml], { type: 'text/xml' }), filename);
  return send(context, url, {
    method: 'POST',
    body: form,
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
}

/** Who authenticates at a receiver, and how strictly it reads the answer. */
export interface Caller {
  key: SigningKey;
  /** The signed seed's endpoint (the standard's spelling by default; DGII writes `validacionCertificado`). */
  validationPath?: string;
  /** DGII reads `expira` as a date-time and fails on anything else, e.g. a Unix time (research/certification.md §1). */
  requireDateTimeExpiry?: boolean;
}

/** Why an authentication failed: the receiver could not be reached, answered an HTTP error, or gave no usable token. */
export type AuthenticationFailure =
  { kind: 'unreachable' } | { kind: 'status'; status: number } | { kind: 'seed' } | { kind: 'token' };

export type Authenticated =
  { ok: true; token: string | undefined } | { ok: false; message: string; failure: AuthenticationFailure };

/** The receiver's token, or no token when no authentication URL was given. */
export async function authenticateAt(
  context: SandboxContext,
  base: URL | undefined,
  caller: Caller = { key: context.counterpart.key },
): Promise<Authenticated> {
  if (base === undefined) return { ok: true, token: undefined };
  const seedUrl = endpointUrl(base, standardPaths.semilla);
  const seed = await send(context, seedUrl, { method: 'GET' });
  if (!seed.ok) return { ...seed, failure: { kind: 'unreachable' } };
  if (seed.status !== 200)
    return {
      ok: false,
      message: `La semilla de ${seedUrl} respondió HTTP ${String(seed.status)}.`,
      failure: { kind: 'status', status: seed.status },
    };
  let signed: string;
  try {
    signed = signXml(seed.body, caller.key);
  } catch {
    return {
      ok: false,
      message: `La semilla de ${seedUrl} no es un XML que pueda firmarse.`,
      failure: { kind: 'seed' },
    };
  }
  const validationUrl = endpointUrl(base, caller.validationPath ?? standardPaths.validacionCertificado);
  const form = new FormData();
  form.append('xml', new Blob([signed], { type: 'text/xml' }), 'semilla.xml');
  const answer = await send(context, validationUrl, {
    method: 'POST',
    body: form,
    headers: { accept: 'application/json' },
  });
  if (!answer.ok) return { ...answer, failure: { kind: 'unreachable' } };
  if (answer.status !== 200)
    return {
      ok: false,
      message: `${validationUrl} respondió HTTP ${String(answer.status)}: ${answer.body.slice(0, 300)}`,
      failure: { kind: 'status', status: answer.status },
    };
  const token = tokenOf(answer.body);
  if (token === undefined)
    return { ok: false, message: `${validationUrl} no devolvió un token.`, failure: { kind: 'token' } };
  if (caller.requireDateTimeExpiry === true && !isDateTime(token.expira)) {
    return {
      ok: false,
      message: `${validationUrl} devolvió expira ${JSON.stringify(token.expira ?? null)}, que no es una fecha y hora.`,
      failure: { kind: 'token' },
    };
  }
  return { ok: true, token: token.token };
}

function isDateTime(value: unknown): boolean {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value) && !Number.isNaN(Date.parse(value));
}

function tokenOf(body: string): { token: string; expira: unknown } | undefined {
  try {
    const parsed = JSON.parse(body) as unknown;
    if (
      typeof parsed === 'object' &&
      parsed !== null &&
      'token' in parsed &&
      typeof parsed.token === 'string' &&
      parsed.token !== ''
    ) {
      return { token: parsed.token, expira: 'expira' in parsed ? parsed.expira : undefined };
    }
  } catch {
    // Some receivers answer XML whatever the Accept header says (the standard allows both forms).
  }
  const token = /<token>\s*([^<\s]+)\s*<\/token>/.exec(body)?.[1];
  return token === undefined ? undefined : { token, expira: /<expira>\s*([^<]*?)\s*<\/expira>/.exec(body)?.[1] };
}
