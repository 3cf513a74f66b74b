// Signed service-to-service messages in the Standard Webhooks scheme: HMAC-SHA256 over
// `${webhook-id}.${webhook-timestamp}.${body}`, sent as `webhook-signature: v1,<base64>` (several
// space-separated signatures allowed, for secret rotation). Used by the control plane's calls to us.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { fail, ok, type Result } from '../result.js';

export const signatureToleranceSeconds = 5 * 60;

/** `whsec_<base64>` secrets are decoded as Standard Webhooks does; any other string is used as UTF-8. */
export function secretBytes(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
}

export function signMessage(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secretBytes(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The verified message id, or why the message is refused. */
export function verifySignedMessage(input: {
  secret: string;
  headers: IncomingHttpHeaders;
  body: string;
  now: Date;
}): Result<string> {
  const id = header(input.headers, 'webhook-id');
  const timestamp = header(input.headers, 'webhook-timestamp');
  const signatures = header(input.headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || signatures === undefined) {
    return fail('signature_missing', 'Send webhook-id, webhook-timestamp and webhook-signature headers.');
  }
  if (!/^\d{1,12}$/.test(timestamp)) return fail('signature_invalid', 'webhook-timestamp must be Unix seconds.');
  const age = Math.floor(input.now.getTime() / 1_000) - Number(timestamp);
  if (Math.abs(age) > signatureToleranceSeconds) {
    return fail(
      'signature_stale',
      `webhook-timestamp is ${age} s from now; at most ${signatureToleranceSeconds} s is accepted.`,
    );
  }
  const expected = Buffer.from(signMessage(input.secret, id, Number(timestamp), input.body));
  const matches = signatures.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches ? ok(id) : fail('signature_invalid', 'webhook-signature does not match the body.');
}
