// The client's webhook verifier (sdk/src/webhooks.ts) against the `standardwebhooks` library as an independent
// oracle: whatever one signs the other verifies, and both refuse the same rotated-out, stale and tampered deliveries.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError, type WebhookVerificationFailure } from '../sdk/src/index.js';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const nowSeconds = () => Math.floor(Date.now() / 1_000);

function eventBody(type = 'document.accepted'): string {
  return JSON.stringify({
    id: `evt_${randomUUID()}`,
    type,
    createdAt: new Date().toISOString(),
    environment: 'TEST',
    company: { id: 'cmp_1', rnc: '999999992' },
    data: {
      documentId: 'doc_1',
      eNCF: 'E310000000001',
      status: 'accepted',
      razonSocial: 'Ferretería Ñoño & Asociados',
    },
  });
}

/** Headers as the service sends them: one `v1,` signature per secret, signed by the oracle. */
function signedHeaders(secrets: string[], body: string, timestamp = nowSeconds(), id = `msg_${randomUUID()}`) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets
      .map((secret) => new Webhook(secret).sign(id, new Date(timestamp * 1_000), body))
      .join(' '),
  };
}

function oracleAccepts(secret: string, headers: Record<string, string>, body: string): boolean {
  try {
    new Webhook(secret).verify(body, headers);
    return true;
  } catch {
    return false;
  }
}

async function ourVerdict(
  secret: string,
  headers: Record<string, string> | Headers,
  body: string | Uint8Array,
): Promise<'ok' | WebhookVerificationFailure> {
  try {
    await verifyWebhook({ secret, headers, body });
    return 'ok';
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
}

describe('client webhook verifier', () => {
  it('accepts what standardwebhooks signs and returns the event, for any body', async () => {
    const secret = newSecret();
    for (const type of ['document.accepted', 'document.rejected', 'webhook.test']) {
      const body = eventBody(type);
      const headers = signedHeaders([secret], body);
      assert.ok(oracleAccepts(secret, headers, body));
      const event = await verifyWebhook({ secret, headers, body });
      assert.deepEqual(event, JSON.parse(body));
      assert.equal(event.type, type);
    }
  });

  it('takes Fetch Headers, header objects in any case and the raw bytes alike', async () => {
    const secret = newSecret();
    const body = eventBody();
    const headers = signedHeaders([secret], body);
    assert.equal(await ourVerdict(secret, new Headers(headers), body), 'ok');
    assert.equal(await ourVerdict(secret, headers, Buffer.from(body)), 'ok');
    assert.equal(await ourVerdict(secret, headers, new TextEncoder().encode(body)), 'ok');
    const capitalised = {
      'Webhook-Id': headers['webhook-id'],
      'Webhook-Timestamp': headers['webhook-timestamp'],
      'Webhook-Signature': headers['webhook-signature'],
    };
    assert.equal(await ourVerdict(secret, capitalised, body), 'ok');
  });

  it('accepts either secret of a rotation and refuses any other', async () => {
    const previous = newSecret();
    const current = newSecret();
    const stranger = newSecret();
    const body = eventBody();
    const headers = signedHeaders([current, previous], body);
    assert.equal(headers['webhook-signature'].split(' ').length, 2);
    for (const [secret, expected] of [
      [current, true],
      [previous, true],
      [stranger, false],
    ] as const) {
      assert.equal(oracleAccepts(secret, headers, body), expected);
      assert.equal(await ourVerdict(secret, headers, body), expected ? 'ok' : 'signature_invalid');
    }
  });

  it('refuses a timestamp more than 5 minutes from now, either way, as the oracle does', async () => {
    const secret = newSecret();
    const body = eventBody();
    for (const [offset, expected] of [
      [-290, 'ok'],
      [290, 'ok'],
      [-310, 'timestamp_stale'],
      [310, 'timestamp_stale'],
      [-86_400, 'timestamp_stale'],
    ] as const) {
      const headers = signedHeaders([secret], body, nowSeconds() + offset);
      assert.equal(oracleAccepts(secret, headers, body), expected === 'ok', `oracle at ${String(offset)} s`);
      assert.equal(await ourVerdict(secret, headers, body), expected, `at ${String(offset)} s`);
    }
  });

  it('refuses a tampered body, id, timestamp or signature, as the oracle does', async () => {
    const secret = newSecret();
    const body = eventBody();
    const headers = signedHeaders([secret], body);
    const [, mac = ''] = headers['webhook-signature'].split(',');
    const flipped = `${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`;
    const tampered: [string, Record<string, string>, string][] = [
      ['body', headers, body.replace('accepted', 'rejected')],
      ['body by one trailing space', headers, `${body} `],
      ['id', { ...headers, 'webhook-id': 'msg_other' }, body],
      ['timestamp', { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) }, body],
      ['signature', { ...headers, 'webhook-signature': `v1,${flipped}` }, body],
      ['signature version', { ...headers, 'webhook-signature': `v2,${mac}` }, body],
      ['signature encoding', { ...headers, 'webhook-signature': 'v1,***' }, body],
    ];
    for (const [what, forged, forgedBody] of tampered) {
      assert.equal(oracleAccepts(secret, forged, forgedBody), false, `oracle, tampered ${what}`);
      assert.equal(await ourVerdict(secret, forged, forgedBody), 'signature_invalid', `tampered ${what}`);
    }
  });

  it('says which header is missing or malformed', async () => {
    const secret = newSecret();
    const body = eventBody();
    const headers = signedHeaders([secret], body);
    assert.equal(await ourVerdict(secret, { ...headers, 'webhook-signature': '' }, body), 'headers_missing');
    assert.equal(await ourVerdict(secret, { 'webhook-id': 'x', 'webhook-signature': 'v1,x' }, body), 'headers_missing');
    assert.equal(await ourVerdict(secret, { ...headers, 'webhook-timestamp': '12.5' }, body), 'timestamp_invalid');
  });
});
