import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { signMessage, verifySignedMessage } from './signed-message.js';

const secret = 'a-shared-secret-of-enough-length';
const now = new Date('2026-11-21T12:00:00Z');
const nowSeconds = Math.floor(now.getTime() / 1_000);
const body = '{"type":"company.updated","data":{"companyId":"cmp_x"}}';

function headers(id: string, timestamp: number, signature: string) {
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
}

describe('signed messages (Standard Webhooks scheme)', () => {
  it('signs HMAC-SHA256 over id.timestamp.body, base64, with a v1 prefix', () => {
    const expected = createHmac('sha256', secret).update(`msg_1.${nowSeconds}.${body}`).digest('base64');
    assert.equal(signMessage(secret, 'msg_1', nowSeconds, body), `v1,${expected}`);
  });

  it('decodes whsec_ secrets as Standard Webhooks does', () => {
    const raw = Buffer.from('0123456789abcdef0123456789abcdef');
    const expected = createHmac('sha256', raw).update(`msg_1.${nowSeconds}.${body}`).digest('base64');
    assert.equal(signMessage(`whsec_${raw.toString('base64')}`, 'msg_1', nowSeconds, body), `v1,${expected}`);
  });

  it('accepts a good signature, among others during a rotation, and returns the message id', () => {
    const good = signMessage(secret, 'msg_1', nowSeconds, body);
    const result = verifySignedMessage({ secret, headers: headers('msg_1', nowSeconds, `v1,b2xk ${good}`), body, now });
    assert.deepEqual(result, { ok: true, value: 'msg_1' });
  });

  const refusals: [string, Record<string, string>, string, string][] = [
    [
      'a missing signature header',
      { 'webhook-id': 'msg_1', 'webhook-timestamp': String(nowSeconds) },
      body,
      'signature_missing',
    ],
    [
      'a changed body',
      headers('msg_1', nowSeconds, signMessage(secret, 'msg_1', nowSeconds, body)),
      `${body} `,
      'signature_invalid',
    ],
    [
      'another id',
      headers('msg_2', nowSeconds, signMessage(secret, 'msg_1', nowSeconds, body)),
      body,
      'signature_invalid',
    ],
    [
      'another secret',
      headers('msg_1', nowSeconds, signMessage(`${secret}x`, 'msg_1', nowSeconds, body)),
      body,
      'signature_invalid',
    ],
    [
      'a timestamp 301 s old',
      headers('msg_1', nowSeconds - 301, signMessage(secret, 'msg_1', nowSeconds - 301, body)),
      body,
      'signature_stale',
    ],
    [
      'a timestamp 301 s ahead',
      headers('msg_1', nowSeconds + 301, signMessage(secret, 'msg_1', nowSeconds + 301, body)),
      body,
      'signature_stale',
    ],
    [
      'a timestamp in milliseconds',
      headers('msg_1', now.getTime(), signMessage(secret, 'msg_1', now.getTime(), body)),
      body,
      'signature_invalid',
    ],
  ];
  for (const [name, given, sentBody, code] of refusals) {
    it(`refuses ${name} with ${code}`, () => {
      const result = verifySignedMessage({ secret, headers: given, body: sentBody, now });
      assert.equal(result.ok ? 'accepted' : result.failure.code, code);
    });
  }

  it('accepts a timestamp at the edge of the 5-minute window', () => {
    const edge = nowSeconds - 300;
    const result = verifySignedMessage({
      secret,
      headers: headers('msg_1', edge, signMessage(secret, 'msg_1', edge, body)),
      body,
      now,
    });
    assert.equal(result.ok, true);
  });
});
