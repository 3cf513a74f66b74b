// Verifying the service's webhook deliveries (Standard Webhooks): `webhook-signature` holds space-separated
// `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`, one per valid secret during a rotation,
// keyed with the base64-decoded part of the `whsec_` secret. Web Crypto only, so it runs in Node, Deno, Bun,
// browsers and edge workers alike.

/** How far `webhook-timestamp` may be from now, either way: older deliveries are refused as replays. */
export const webhookToleranceSeconds = 5 * 60;

/** The body of every delivery. */
export interface WebhookEvent {
  /** The event id: the same event delivered again (a resend) keeps it, so dedupe on it. */
  id: string;
  /** e.g. `document.accepted`; GET /api/v1/notificaciones/tipos-evento lists them with their data's schema. */
  type: string;
  createdAt: string;
  environment: string;
  company: { id: string; rnc: string };
  /** The X-Correlation-ID of the request whose work caused the event (or the id of the schedule that did). */
  correlationId: string;
  data: unknown;
}

export type WebhookVerificationFailure =
  'headers_missing' | 'timestamp_invalid' | 'timestamp_stale' | 'signature_invalid';

export class WebhookVerificationError extends Error {
  readonly reason: WebhookVerificationFailure;
  constructor(reason: WebhookVerificationFailure, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}

/** The headers of a request as Fetch (`Headers`) or Node (`IncomingHttpHeaders`) give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function header(headers: WebhookHeaders, name: string): string | undefined {
  // Node gives header names in lower case; other frameworks keep the sender's case.
  const value =
    headers instanceof Headers
      ? headers.get(name)
      : Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  const text = Array.isArray(value) ? value[0] : value;
  return text === null || text === undefined || text === '' ? undefined : text;
}

function base64Bytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/**
 * The delivery's event when one of its signatures matches `secret` and its timestamp is within the tolerance;
 * a WebhookVerificationError otherwise. `body` is the raw body exactly as received: parsed and re-serialised JSON
 * would no longer match.
 */
export async function verifyWebhook(input: {
  secret: string;
  headers: WebhookHeaders;
  body: string | Uint8Array;
  now?: Date;
  toleranceSeconds?: number;
}): Promise<WebhookEvent> {
  const id = header(input.headers, 'webhook-id');
  const timestamp = header(input.headers, 'webhook-timestamp');
  const signatures = header(input.headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || signatures === undefined)
    throw new WebhookVerificationError(
      'headers_missing',
      'webhook-id, webhook-timestamp and webhook-signature are required',
    );
  if (!/^\d{1,12}$/.test(timestamp))
    throw new WebhookVerificationError('timestamp_invalid', 'webhook-timestamp is not Unix seconds');
  const age = Math.floor((input.now ?? new Date()).getTime() / 1_000) - Number(timestamp);
  const tolerance = input.toleranceSeconds ?? webhookToleranceSeconds;
  if (Math.abs(age) > tolerance)
    throw new WebhookVerificationError('timestamp_stale', `webhook-timestamp is ${String(age)} s from now`);

  const secretBytes = base64Bytes(input.secret.replace(/^whsec_/, ''));
  if (secretBytes === undefined) throw new TypeError('The secret is not whsec_ followed by base64');
  const key = await globalThis.crypto.subtle.importKey('raw', secretBytes, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'verify',
  ]);
  const body = typeof input.body === 'string' ? new TextEncoder().encode(input.body) : input.body;
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);

  for (const candidate of signatures.split(' ')) {
    const [version, encoded] = candidate.split(',', 2);
    const signature = version === 'v1' && encoded !== undefined ? base64Bytes(encoded) : undefined;
    // subtle.verify compares the MACs in constant time.
    if (signature !== undefined && (await globalThis.crypto.subtle.verify('HMAC', key, signature, signed)))
      return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
  }
  throw new WebhookVerificationError('signature_invalid', 'No webhook-signature matches the body with this secret');
}
