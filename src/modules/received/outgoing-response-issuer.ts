// Delivering our ACECF to the e-CF issuer's receiver, as the receiver standard defines it (DT "Estándar de
// comunicación Emisor-Receptor"; research/dgii-protocol.md §6.1): the issuer's bases come from DGII's directory
// (urlAceptacion, and urlOpcional when it offers authentication); with authentication, GET a seed, sign it with our
// certificate, POST it to validacioncertificado and use the token as Bearer; then POST the ACECF as multipart field
// `xml` named RNCComprador + eNCF + .xml (§9.4). The receiver answers HTTP 200 when it takes it, 400 when not.
import { randomBytes } from 'node:crypto';
import type { DirectoryEntry, HttpResult, HttpTransport } from '../../dgii/index.js';
import { signXml, type SigningKey } from '../../fiscal/xmldsig/index.js';

export const receiverPaths = {
  semilla: '/fe/autenticacion/api/semilla',
  validacionCertificado: '/fe/autenticacion/api/validacioncertificado',
  aprobacionComercial: '/fe/aprobacioncomercial/api/ecf',
} as const;

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

function httpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** multipart/form-data with one file part `xml`, built whole so it carries a Content-Length. */
export function xmlPart(xml: Buffer, fileName: string): { body: Buffer; contentType: string } {
  const boundary = `----acecf${randomBytes(12).toString('hex')}`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="xml"; filename="${fileName.replace(/["\r\n\\]/g, '_')}"\r\nContent-Type: text/xml\r\n\r\n`;
  return {
    body: Buffer.concat([Buffer.from(head, 'utf8'), xml, Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8')]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

export type IssuerOutcome =
  | { kind: 'delivered'; url: string; httpStatus: number }
  /** The receiver answered and refused it (HTTP 4xx): another attempt may still succeed (its e-CF not yet known). */
  | { kind: 'refused'; url: string; httpStatus: number; detail: string }
  /** No answer, or one that says nothing about the ACECF (5xx, a broken connection, a failed authentication). */
  | { kind: 'failed'; url: string | null; detail: string };

function excerpt(body: Buffer): string {
  return body.toString('utf8').replace(/\s+/g, ' ').trim().slice(0, 300);
}

function failureOf(result: Extract<HttpResult, { ok: false }>): string {
  return `${result.failure}${result.code === undefined ? '' : ` (${result.code})`}`;
}

function tokenOf(body: Buffer): string | undefined {
  const text = body.toString('utf8');
  try {
    const parsed = JSON.parse(text) as unknown;
    if (
      typeof parsed === 'object' &&
      parsed !== null &&
      'token' in parsed &&
      typeof parsed.token === 'string' &&
      parsed.token !== ''
    )
      return parsed.token;
  } catch {
    // The standard lets a receiver answer XML.
  }
  return /<token>\s*([^<\s]+)\s*<\/token>/.exec(text)?.[1];
}

async function authenticate(
  transport: HttpTransport,
  base: string,
  key: SigningKey,
): Promise<{ ok: true; token: string } | { ok: false; url: string; detail: string }> {
  const seedUrl = receiverEndpoint(base, receiverPaths.semilla);
  const seed = await transport({ method: 'GET', url: seedUrl, headers: { accept: 'application/xml' } });
  if (!seed.ok) return { ok: false, url: seedUrl, detail: `seed: ${failureOf(seed)}` };
  if (seed.status !== 200)
    return { ok: false, url: seedUrl, detail: `seed: HTTP ${String(seed.status)} ${excerpt(seed.body)}`.trim() };
  let signed: string;
  try {
    signed = signXml(seed.body.toString('utf8'), key);
  } catch {
    return { ok: false, url: seedUrl, detail: 'seed: the answer is not an XML seed that can be signed' };
  }
  const validationUrl = receiverEndpoint(base, receiverPaths.validacionCertificado);
  const part = xmlPart(Buffer.from(signed, 'utf8'), 'semilla.xml');
  const answer = await transport({
    method: 'POST',
    url: validationUrl,
    headers: { 'content-type': part.contentType, accept: 'application/json' },
    body: part.body,
  });
  if (!answer.ok) return { ok: false, url: validationUrl, detail: `validacioncertificado: ${failureOf(answer)}` };
  if (answer.status !== 200)
    return {
      ok: false,
      url: validationUrl,
      detail: `validacioncertificado: HTTP ${String(answer.status)} ${excerpt(answer.body)}`.trim(),
    };
  const token = tokenOf(answer.body);
  return token === undefined
    ? { ok: false, url: validationUrl, detail: 'validacioncertificado answered no token' }
    : { ok: true, token };
}

/** Sends the stored ACECF bytes to the issuer's receiver named by its directory entry. */
export async function deliverToIssuer(
  transport: HttpTransport,
  entry: DirectoryEntry,
  acecf: { xml: Buffer; fileName: string },
  key: SigningKey,
): Promise<IssuerOutcome> {
  if (!httpUrl(entry.urlAceptacion))
    return {
      kind: 'failed',
      url: null,
      detail: `DGII's directory gives ${entry.rnc} no usable approval URL (urlAceptacion "${entry.urlAceptacion}")`,
    };
  const url = receiverEndpoint(entry.urlAceptacion, receiverPaths.aprobacionComercial);
  let token: string | undefined;
  if (entry.urlOpcional.trim() !== '') {
    if (!httpUrl(entry.urlOpcional))
      return {
        kind: 'failed',
        url: null,
        detail: `DGII's directory gives ${entry.rnc} an unusable authentication URL ("${entry.urlOpcional}")`,
      };
    const session = await authenticate(transport, entry.urlOpcional, key);
    if (!session.ok)
      return { kind: 'failed', url: session.url, detail: `authentication at the issuer failed: ${session.detail}` };
    token = session.token;
  }
  const part = xmlPart(acecf.xml, acecf.fileName);
  const headers: Record<string, string> = {
    'content-type': part.contentType,
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
  };
  const answer = await transport({ method: 'POST', url, headers, body: part.body });
  if (!answer.ok) return { kind: 'failed', url, detail: failureOf(answer) };
  if (answer.status >= 200 && answer.status < 300) return { kind: 'delivered', url, httpStatus: answer.status };
  if (answer.status >= 400 && answer.status < 500)
    return {
      kind: 'refused',
      url,
      httpStatus: answer.status,
      detail: `HTTP ${String(answer.status)} ${excerpt(answer.body)}`.trim(),
    };
  return { kind: 'failed', url, detail: `HTTP ${String(answer.status)} ${excerpt(answer.body)}`.trim() };
}
