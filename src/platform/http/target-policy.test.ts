import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../../config.js';
import { refusedAddressReason, resolveTarget, urlProblem } from './target-policy.js';

describe('webhook target policy', () => {
  for (const address of [
    '127.0.0.1',
    '127.8.9.10',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fd00:ec2::254',
    'fc00::1',
    '::ffff:10.0.0.1',
    '::ffff:7f00:1',
    '64:ff9b::a00:1',
  ]) {
    it(`refuses ${address}`, () => {
      assert.match(refusedAddressReason(address) ?? '', /loopback, private, link-local, metadata or reserved/);
    });
  }
  for (const address of [
    '93.184.215.14',
    '8.8.8.8',
    '172.32.0.1',
    '192.169.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
  ]) {
    it(`allows ${address}`, () => {
      assert.equal(refusedAddressReason(address), undefined);
    });
  }

  it('takes https anywhere, http outside PRODUCTION only, and no credentials or other schemes', () => {
    const test = { environment: 'TEST', allowPrivate: false } as const;
    const production = { environment: 'PRODUCTION', allowPrivate: false } as const;
    assert.equal(urlProblem('https://erp.example.com/hook', production), undefined);
    assert.equal(urlProblem('http://erp.example.com/hook', test), undefined);
    assert.equal(urlProblem('http://erp.example.com/hook', production), 'must use https in PRODUCTION');
    assert.equal(urlProblem('gopher://erp.example.com/', test), 'must use https (got gopher:)');
    assert.equal(urlProblem('https://a:b@erp.example.com/', test), 'must not carry credentials');
    assert.equal(urlProblem('/relative', test), 'is not an absolute URL');
  });

  it('checks every address a name resolves to, unless private targets are allowed', async () => {
    const refused = await resolveTarget('localhost', { environment: 'TEST', allowPrivate: false });
    assert.equal(refused.ok, false);
    const allowed = await resolveTarget('localhost', { environment: 'TEST', allowPrivate: true });
    assert.ok(allowed.ok && allowed.addresses.length > 0);
    assert.deepEqual(await resolveTarget('[::1]', { environment: 'TEST', allowPrivate: true }), {
      ok: true,
      addresses: [{ address: '::1', family: 6 }],
    });
    const unknown = await resolveTarget('no-such-host.invalid', { environment: 'TEST', allowPrivate: false });
    assert.equal(unknown.ok, false);
  });
});

describe("the address rule's configuration", () => {
  const base = { NODE_ENV: 'test', MASTER_KEY: Buffer.alloc(32, 1).toString('base64') };
  it('allows private targets by default only on the embedded single-machine setup', () => {
    assert.equal(parseConfig(base).outboundAllowPrivate, true);
    assert.equal(parseConfig({ ...base, DATABASE_URL: 'postgres://db/ecf' }).outboundAllowPrivate, false);
    assert.equal(parseConfig({ ...base, NODE_ENV: 'production' }).outboundAllowPrivate, false);
    assert.equal(
      parseConfig({ ...base, DATABASE_URL: 'postgres://db/ecf', OUTBOUND_ALLOW_PRIVATE: 'true' }).outboundAllowPrivate,
      true,
    );
    assert.throws(
      () => parseConfig({ ...base, FISCAL_ENV: 'PRODUCTION', OUTBOUND_ALLOW_PRIVATE: 'true' }),
      /OUTBOUND_ALLOW_PRIVATE cannot be true with FISCAL_ENV=PRODUCTION/,
    );
  });

  it('defaults to a 15 s timeout, a 24 h grace period, 5 days before disabling, 64 deliveries in flight and 30 days of history', () => {
    const { webhooks } = parseConfig(base);
    assert.deepEqual(
      { ...webhooks },
      {
        timeoutMs: 15_000,
        secretGraceMs: 86_400_000,
        dispatchIntervalMs: 250,
        concurrency: 64,
        disableAfterMs: 432_000_000,
        retentionMs: 30 * 86_400_000,
      },
    );
    assert.equal(parseConfig({ ...base, WEBHOOKS_RETENTION_DAYS: '90' }).webhooks.retentionMs, 90 * 86_400_000);
    assert.throws(
      () => parseConfig({ ...base, WEBHOOKS_RETENTION_DAYS: '0' }),
      /WEBHOOKS_RETENTION_DAYS must be a whole number from 1 to 3650/,
    );
    assert.equal(parseConfig({ ...base, WEBHOOKS_CONCURRENCY: '8' }).webhooks.concurrency, 8);
    assert.throws(
      () => parseConfig({ ...base, WEBHOOKS_TIMEOUT_MS: '0' }),
      /WEBHOOKS_TIMEOUT_MS must be a whole number from 100 to 60000/,
    );
    assert.throws(
      () => parseConfig({ ...base, WEBHOOKS_CONCURRENCY: '0' }),
      /WEBHOOKS_CONCURRENCY must be a whole number from 1 to 1000/,
    );
  });
});
