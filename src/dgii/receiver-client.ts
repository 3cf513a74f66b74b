// Calls to other taxpayers' receivers, as DGII's receiver standard defines them (DT "Estándar de comunicación
// Emisor-Receptor"; research/dgii-protocol.md §6.1): our e-CF to a buyer's reception, our ACECF to an issuer's
// approval service. The bases come from DGII's directory, that is from outside: every call passes the address rule
// the webhooks follow (platform/http/target-policy.ts) and goes to the address that rule checked, and an answer is
// read up to a size no acknowledgement comes near. Authentication is the receiver's option: when the directory
// gives an authentication base (urlOpcional), a seed is asked there, signed with the company's certificate and
// exchanged for a token, which is kept until it expires, per company and receiver.
import type { IncomingHttpHeaders } from 'node:http';
import { signXml, type SigningKey } from '../fiscal/xmldsig/index.js';
import { resolveTarget, urlProblem, type TargetPolicy } from '../platform/http/target-policy.js';
import { xmlMultipart, type HttpResult, type HttpTransport } from './transport.js';

export const receiverPaths = {
  semilla: '/fe/autenticacion/api/semilla',
  validacionCertificado: '/fe/autenticacion/api/validacioncertificado',
  recepcion: '/fe/recepcion/api/ecf',
  aprobacionComercial: '/fe/aprobacioncomercial/api/ecf',
} as const;

/** A signed ARECF or a token is a few KB; 256 KB leaves room for a certificate chain and nothing else. */
export const maxReceiverAnswerBytes = 256 * 1024;

/** Tokens kept at once; the oldest goes first. */
const maxCachedTokens = 1_000;

/** A token is used until this long before the receiver said it expires. */
const tokenMarginMs = 60_000;

/** When a receiver's answer gives no expiry: DGII's own tokens last an hour (research §1.3). */
const defaultTokenMs = 50 * 60_000;

/**
 * The standard endpoint under a directory base. A base that already ends with the endpoint's service part (e.g.
 * `https://host/fe/aprobacioncomercial`) or with the whole path is not repeated; receivers register either form.
 */
export function receiverEndpoint(base: string, path: string): string {
  const trimmed = base.trim().replace(/\/+$/, '');
  const lower = trimmed.toLowerCase();
  if (lower.endsWith(path)) return trimmed;
  const service = path.split('/api/')[0] ?? path;
  if (lower.endsWith(service)) return `${trimmed}${path.slice(service.length)}`;
  return `${trimmed}${path}`;
}

export interface ReceiverPost {
  companyId: string;
  /** The directory's base for this service (urlRecepcion, urlAceptacion). */
  serviceBase: string;
  /** The directory's urlOpcional: empty when the receiver asks for no authentication. */
  authenticationBase: string;
  path: (typeof receiverPaths)['recepcion' | 'aprobacionComercial'];
  file: { xml: Buffer; fileName: string };
  /** The company's certificate, to sign the receiver's seed with. */
  key: SigningKey;
}

export type ReceiverAnswer =
  | { kind: 'answered'; url: string; status: number; body: Buffer; headers: IncomingHttpHeaders }
  /**
   * No answer about the document: the URL refused by the address rule, the network, or the authentication.
   * `sent`: the whole document was written before the connection failed, so the receiver may have it.
   */
  | { kind: 'failed'; url: string | null; detail: string; sent: boolean };

export interface ReceiverClient {
  post(input: ReceiverPost): Promise<ReceiverAnswer>;
}

function excerpt(body: Buffer): string {
  return body.toString('utf8').replace(/\s+/g, ' ').trim().slice(0, 300);
}

function failureOf(result: Extract<HttpResult, { ok: false }>): string {
  return `${result.failure}${result.code === undefined ? '' : ` (${result.code})`}`;
}

function tokenOf(body: Buffer, now: number): { token: string; until: number } | undefined {
  const text = body.toString('utf8');
  let token: string | undefined;
  let expira: string | undefined;
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    if (typeof parsed['token'] === 'string' && parsed['token'] !== '') token = parsed['token'];
    if (typeof parsed['expira'] === 'string') expira = parsed['expira'];
  } catch {
    // The standard lets a receiver answer XML.
    token = /<token>\s*([^<\s]+)\s*<\/token>/.exec(text)?.[1];
    expira = /<expira>\s*([^<\s]+)\s*<\/expira>/.exec(text)?.[1];
  }
  if (token === undefined) return undefined;
  const expires = expira === undefined ? Number.NaN : Date.parse(expira);
  const until = Number.isNaN(expires) ? now + defaultTokenMs : Math.min(expires, now + 24 * 3_600_000);
  return { token, until: until - tokenMarginMs };
}

export function createReceiverClient(deps: {
  transport: HttpTransport;
  policy: TargetPolicy;
  now: () => Date;
  /** How a host is resolved and checked (tests give one that needs no DNS). */
  resolve?: typeof resolveTarget;
}): ReceiverClient {
  const { transport, policy } = deps;
  const resolve = deps.resolve ?? resolveTarget;
  const tokens = new Map<string, { token: string; until: number }>();

  /** One call to a URL from outside: refused unless the address rule allows it, then to the address it checked. */
  async function call(
    url: string,
    request: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: Buffer },
  ): Promise<HttpResult | { ok: false; refused: string }> {
    const problem = urlProblem(url, policy);
    if (problem !== undefined) return { ok: false, refused: `${url} ${problem}` };
    const target = await resolve(new URL(url).hostname, policy);
    if (!target.ok) return { ok: false, refused: target.reason };
    const [pinned] = target.addresses;
    if (pinned === undefined) return { ok: false, refused: `${url} has no address` };
    return transport({ ...request, url, pinned, maxResponseBytes: maxReceiverAnswerBytes });
  }

  function failed(url: string | null, result: HttpResult | { ok: false; refused: string }, what: string) {
    const detail =
      'refused' in result
        ? `${what}: the address is not allowed (${result.refused})`
        : result.ok
          ? `${what}: HTTP ${String(result.status)} ${excerpt(result.body)}`.trim()
          : `${what}: ${failureOf(result)}`;
    const sent = 'refused' in result || result.ok ? false : result.sent;
    return { kind: 'failed' as const, url, detail, sent };
  }

  async function authenticate(
    input: ReceiverPost,
  ): Promise<{ ok: true; token: string } | { ok: false; answer: ReceiverAnswer }> {
    const cacheKey = `${input.companyId} ${input.authenticationBase.trim().toLowerCase()}`;
    const now = deps.now().getTime();
    const cached = tokens.get(cacheKey);
    if (cached !== undefined && cached.until > now) return { ok: true, token: cached.token };
    const seedUrl = receiverEndpoint(input.authenticationBase, receiverPaths.semilla);
    const seed = await call(seedUrl, { method: 'GET', headers: { accept: 'application/xml' } });
    if (!seed.ok || seed.status !== 200) return { ok: false, answer: failed(seedUrl, seed, 'authentication, seed') };
    let signed: string;
    try {
      signed = signXml(seed.body.toString('utf8'), input.key);
    } catch {
      return {
        ok: false,
        answer: {
          kind: 'failed',
          url: seedUrl,
          detail: 'authentication: the seed is not XML that can be signed',
          sent: false,
        },
      };
    }
    const validationUrl = receiverEndpoint(input.authenticationBase, receiverPaths.validacionCertificado);
    const part = xmlMultipart(Buffer.from(signed, 'utf8'), 'semilla.xml');
    const answer = await call(validationUrl, {
      method: 'POST',
      headers: { 'content-type': part.contentType, accept: 'application/json' },
      body: part.body,
    });
    if (!answer.ok || answer.status !== 200)
      return { ok: false, answer: failed(validationUrl, answer, 'authentication, validacioncertificado') };
    const token = tokenOf(answer.body, now);
    if (token === undefined)
      return {
        ok: false,
        answer: {
          kind: 'failed',
          url: validationUrl,
          detail: 'authentication: validacioncertificado gave no token',
          sent: false,
        },
      };
    if (tokens.size >= maxCachedTokens) tokens.delete(tokens.keys().next().value ?? '');
    tokens.set(cacheKey, token);
    return { ok: true, token: token.token };
  }

  return {
    async post(input) {
      let token: string | undefined;
      if (input.authenticationBase.trim() !== '') {
        const session = await authenticate(input);
        if (!session.ok) return session.answer;
        token = session.token;
      }
      const url = receiverEndpoint(input.serviceBase, input.path);
      const part = xmlMultipart(input.file.xml, input.file.fileName);
      const headers: Record<string, string> = {
        'content-type': part.contentType,
        accept: 'application/xml',
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      };
      const answer = await call(url, { method: 'POST', headers, body: part.body });
      if (!answer.ok) return failed(url, answer, 'no answer');
      // A token the receiver no longer takes is asked for again next time.
      if (answer.status === 401) tokens.delete(`${input.companyId} ${input.authenticationBase.trim().toLowerCase()}`);
      return { kind: 'answered', url, status: answer.status, body: answer.body, headers: answer.headers };
    },
  };
}
