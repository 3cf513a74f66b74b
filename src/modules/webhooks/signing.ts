// Signing secrets and the headers of a delivery, in the Standard Webhooks scheme (research/anchors.md §4.1):
// `v1,<base64(HMAC-SHA256(secret bytes, "{id}.{timestamp}.{body}"))>`, one per valid secret, space-separated.
// The same values go under the service's own X-Service-* names (SPEC §6.1).
import { randomBytes } from 'node:crypto';
import { signMessage } from '../../platform/http/signed-message.js';

/** `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** What a secret is sealed under: bound to its endpoint, so a sealed value moved to another row does not open. */
export function secretContext(endpointId: string): string {
  return `webhook-secret:${endpointId}`;
}

export function deliveryHeaders(input: {
  deliveryId: string;
  eventType: string;
  timestamp: number;
  body: string;
  secrets: readonly string[];
}): Record<string, string> {
  const signature = input.secrets
    .map((secret) => signMessage(secret, input.deliveryId, input.timestamp, input.body))
    .join(' ');
  const timestamp = String(input.timestamp);
  return {
    'webhook-id': input.deliveryId,
    'webhook-timestamp': timestamp,
    'webhook-signature': signature,
    'x-service-event': input.eventType,
    'x-service-delivery': input.deliveryId,
    'x-service-timestamp': timestamp,
    'x-service-signature': signature,
  };
}
