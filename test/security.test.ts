// The shared security suite: every /api/v1 route in the registered route table (Spanish routes and English
// aliases alike) is walked with each way a key can be wrong, so a new route is covered the day it is added.
import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import { after, before, describe, it, type TestContext } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { generateApiKey } from '../src/modules/api-keys/api-key-format.js';
import { fixedClock } from '../src/platform/clock.js';
import type { App, CatalogueEntry } from '../src/platform/http/route.js';
import { effectiveScopes, scopes, scopesGranting, type Scope } from '../src/platform/http/scopes.js';
import type { ProblemCode } from '../src/platform/result.js';
import { assertProblem } from './support/assert-problem.js';
import { scopeProbeUrl, startScopeProbe } from './support/scope-probe.js';
import { startTestApp, type TestApp } from './support/test-app.js';

interface GuardedRoute {
  method: InjectOptions['method'];
  /** As registered, with `:params`. */
  url: string;
  /** What is requested: params filled with dummy values. */
  path: string;
  scope: Scope | 'any';
  label: string;
}

/** Every /api/v1 route of the catalogue; each must be guarded by an API key. */
function guardedRoutes(catalogue: readonly CatalogueEntry[]): GuardedRoute[] {
  return catalogue
    .filter((entry) => entry.url.startsWith('/api/v1'))
    .map((entry) => {
      assert.equal(entry.auth.kind, 'apiKey', `${entry.method} ${entry.url} must require an API key`);
      return {
        method: entry.method,
        url: entry.url,
        path: entry.url.replace(/:[A-Za-z0-9_]+/g, 'x').replace(/\*/g, 'x'),
        scope: entry.auth.scope,
        label: `${entry.method} ${entry.url}${entry.alias ? ' (alias)' : ''}`,
      };
    });
}

// `ecf_test_<lookup:16>_<secret:32><checksum:6>`
const secretStart = 'ecf_test_'.length + 16 + 1;
const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const keyShape = /^ecf_test_[0-9A-Za-z]{16}_[0-9A-Za-z]{38}$/;

/** A real key with one character of its secret changed: still the right shape, but the checksum fails. */
function withOneSecretCharacterChanged(key: string): string {
  const replacement = key.charAt(secretStart) === 'a' ? 'b' : 'a';
  const changed = `${key.slice(0, secretStart)}${replacement}${key.slice(secretStart + 1)}`;
  assert.match(changed, keyShape);
  assert.notEqual(changed, key);
  return changed;
}

function withChecksum(body: string): string {
  let value = crc32(body);
  let sum = '';
  for (let i = 0; i < 6; i++) {
    sum = base62.charAt(value % 62) + sum;
    value = Math.floor(value / 62);
  }
  return `${body}${sum}`;
}

/** A key with an issued key's lookup (its keyId is no secret) but another secret, and a valid checksum. */
function withAnotherSecret(key: string): string {
  assert.equal(withChecksum(key.slice(0, -6)), key, 'the test checksum must agree with issued keys');
  const otherSecret = generateApiKey('TEST').key.slice(secretStart, secretStart + 32);
  return withChecksum(`${key.slice(0, secretStart)}${otherSecret}`);
}

function allScopesExcept(excluded: readonly Scope[]): Scope[] {
  return scopes.filter((scope) => !excluded.includes(scope));
}

/**
 * Past the guard: 2xx where a bare request can succeed (or, for a route that asks DGII, DGII's absence: this app's
 * DGII is unreachable); elsewhere (params or bodies) at least not refused by auth.
 */
function assertAdmitted(route: GuardedRoute, response: LightMyRequestResponse): void {
  const message = `${route.label}: ${response.statusCode} ${response.body}`;
  const code = response.statusCode >= 400 ? response.json<{ code?: string }>().code : undefined;
  const dgiiAbsent = response.statusCode === 503 && code === 'dgii_unavailable';
  // Certification runs in CERT only (SPEC §3 rule 1): on this TEST instance its routes refuse the environment, not
  // the key, and say so with their own code (test/certification-process.test.ts runs them in CERT).
  if (code === 'certification_cert_only' && route.path.includes('/certif')) return;
  if (route.method === 'GET' && route.url === route.path && !dgiiAbsent) {
    assert.ok(response.statusCode >= 200 && response.statusCode < 300, message);
  } else {
    assert.ok(response.statusCode !== 401 && response.statusCode !== 403, message);
  }
}

describe('API key guard on every /api/v1 route', () => {
  const clock = fixedClock(new Date());
  let testEnv: TestApp;
  let certEnv: TestApp;
  let routes: GuardedRoute[];
  let companyId: string;
  let companyRnc: string;
  const keys = {
    all: '',
    revoked: '',
    expired: '',
    suspended: '',
    fromCert: '',
    single: new Map<Scope, string>(),
  };
  let sequence = 0;

  async function call(
    app: App,
    route: Pick<GuardedRoute, 'method' | 'path'>,
    apiKey: string | undefined,
  ): Promise<LightMyRequestResponse> {
    const correlationId = `security-${++sequence}`;
    const response = await app.inject({
      method: route.method,
      url: route.path,
      headers: { 'x-correlation-id': correlationId, ...(apiKey === undefined ? {} : { 'x-api-key': apiKey }) },
    });
    assert.equal(response.headers['x-correlation-id'], correlationId);
    return response;
  }

  const empresa = { method: 'GET', path: '/api/v1/empresa' } as const;

  async function eachRoute(
    t: TestContext,
    check: (route: GuardedRoute) => Promise<void>,
    skip?: (route: GuardedRoute) => string | undefined,
  ) {
    for (const route of routes) {
      const reason = skip?.(route);
      await t.test(
        reason === undefined ? route.label : `${route.label}: skipped, ${reason}`,
        { skip: reason ?? false },
        () => check(route),
      );
    }
  }

  before(async () => {
    [testEnv, certEnv] = await Promise.all([startTestApp({ clock }), startTestApp({ env: { FISCAL_ENV: 'CERT' } })]);
    routes = guardedRoutes(testEnv.application.http?.catalogue ?? []);

    companyId = await testEnv.provisionCompany();
    const company = await testEnv.application.services.companies.get(companyId);
    companyRnc = company?.rnc ?? '';
    keys.all = (await testEnv.issueKey(companyId, scopes)).apiKey;
    for (const scope of scopes) keys.single.set(scope, (await testEnv.issueKey(companyId, [scope])).apiKey);

    const revoked = await testEnv.issueKey(companyId, scopes);
    assert.equal(
      (await call(testEnv.app, empresa, revoked.apiKey)).statusCode,
      200,
      'the key works before it is revoked',
    );
    const revocation = await testEnv.cloud(
      'DELETE',
      `/internal/cloud/v1/companies/${companyId}/api-keys/${revoked.keyId}`,
    );
    assert.equal(revocation.statusCode, 204);
    keys.revoked = revoked.apiKey;

    const suspendedCompany = await testEnv.provisionCompany();
    keys.suspended = (await testEnv.issueKey(suspendedCompany, scopes)).apiKey;
    assert.equal(
      (await call(testEnv.app, empresa, keys.suspended)).statusCode,
      200,
      'the key works before the suspension',
    );
    const suspension = await testEnv.sendEvent('company.suspended', {
      companyId: suspendedCompany,
      reason: 'unpaid invoices',
    });
    assert.equal(suspension.statusCode, 200, suspension.body);

    const certCompany = await certEnv.provisionCompany();
    keys.fromCert = (await certEnv.issueKey(certCompany, scopes)).apiKey;
    assert.match(keys.fromCert, /^ecf_cert_/);

    // Last, because it moves this instance's clock: the key expires five seconds after issue, then a minute passes.
    keys.expired = (
      await testEnv.issueKey(companyId, scopes, { expiresAt: new Date(clock.now().getTime() + 5_000).toISOString() })
    ).apiKey;
    assert.equal((await call(testEnv.app, empresa, keys.expired)).statusCode, 200, 'the key works until it expires');
    clock.advance(60_000);
  });

  after(async () => {
    await Promise.all([testEnv.close(), certEnv.close()]);
  });

  it('finds the company route and its English alias in the route table', () => {
    const labels = routes.map((route) => route.label);
    assert.ok(labels.includes('GET /api/v1/empresa'), labels.join(', '));
    assert.ok(labels.includes('GET /api/v1/company (alias)'), labels.join(', '));
  });

  const refusals: { name: string; code: ProblemCode; key: () => string | undefined }[] = [
    { name: 'without an x-api-key header', code: 'api_key_missing', key: () => undefined },
    { name: 'with an empty x-api-key header', code: 'api_key_missing', key: () => '' },
    { name: 'for the malformed key "nope"', code: 'api_key_malformed', key: () => 'nope' },
    {
      name: 'for a real key with one secret character changed (bad checksum)',
      code: 'api_key_malformed',
      key: () => withOneSecretCharacterChanged(keys.all),
    },
    {
      name: 'for a well-formed key that was never issued',
      code: 'api_key_unknown',
      key: () => generateApiKey('TEST').key,
    },
    {
      name: "for an issued key's id with another secret and a valid checksum",
      code: 'api_key_unknown',
      key: () => withAnotherSecret(keys.all),
    },
    { name: 'for a revoked key', code: 'api_key_revoked', key: () => keys.revoked },
    { name: 'for an expired key', code: 'api_key_expired', key: () => keys.expired },
    {
      name: 'for CERT key text on the TEST instance',
      code: 'api_key_wrong_environment',
      key: () => generateApiKey('CERT').key,
    },
    {
      name: 'for PRODUCTION key text on the TEST instance',
      code: 'api_key_wrong_environment',
      key: () => generateApiKey('PRODUCTION').key,
    },
    { name: 'for a real key issued by a CERT instance', code: 'api_key_wrong_environment', key: () => keys.fromCert },
  ];

  for (const refusal of refusals) {
    it(`answers 401 ${refusal.code} ${refusal.name}`, async (t) => {
      await eachRoute(t, async (route) => {
        assertProblem(await call(testEnv.app, route, refusal.key()), 401, refusal.code);
      });
    });
  }

  it('answers 403 scope_missing to a key holding every scope except those granting the route\'s (skipped for scope "any" routes)', async (t) => {
    const lacking = new Map<Scope, string>();
    await eachRoute(
      t,
      async (route) => {
        if (route.scope === 'any') throw new Error('unreachable');
        const granting = scopesGranting(route.scope);
        let key = lacking.get(route.scope);
        if (key === undefined) {
          key = (await testEnv.issueKey(companyId, allScopesExcept(granting))).apiKey;
          lacking.set(route.scope, key);
        }
        assert.ok(!effectiveScopes(allScopesExcept(granting)).has(route.scope));
        assertProblem(await call(testEnv.app, route, key), 403, 'scope_missing');
      },
      (route) => (route.scope === 'any' ? 'its scope is "any", so every valid key may call it' : undefined),
    );
  });

  it('answers 403 company_suspended to an otherwise sufficient key of a suspended company', async (t) => {
    await eachRoute(t, async (route) => {
      assertProblem(await call(testEnv.app, route, keys.suspended), 403, 'company_suspended');
    });
  });

  it('admits a key holding exactly the route\'s scope (for scope "any": each single scope)', async (t) => {
    await eachRoute(t, async (route) => {
      const candidates = route.scope === 'any' ? scopes : [route.scope];
      for (const scope of candidates) assertAdmitted(route, await call(testEnv.app, route, keys.single.get(scope)));
    });
  });

  it('answers 401 api_key_wrong_environment on the CERT instance to a TEST key, and serves that instance its own key', async () => {
    assertProblem(await call(certEnv.app, empresa, keys.all), 401, 'api_key_wrong_environment');
    const own = await call(certEnv.app, empresa, keys.fromCert);
    assert.equal(own.statusCode, 200, own.body);
    assert.equal(own.json<{ data: { environment: string } }>().data.environment, 'CERT');
  });

  it('generates a correlation id when none is sent and returns it in the header and the problem', async () => {
    const response = await testEnv.app.inject({ method: 'GET', url: '/api/v1/empresa' });
    const body = assertProblem(response, 401, 'api_key_missing');
    assert.match(body.correlationId, /^[0-9a-f-]{36}$/);
  });

  describe('tenancy', () => {
    let otherCompanyId: string;
    let otherKey: string;

    before(async () => {
      otherCompanyId = await testEnv.provisionCompany({ legalName: 'Otra Empresa SRL' });
      otherKey = (await testEnv.issueKey(otherCompanyId, ['documents:read'])).apiKey;
    });

    it('shows a key only its own company in GET /api/v1/empresa', async () => {
      const ownResponse = await call(testEnv.app, empresa, keys.all);
      assert.equal(ownResponse.statusCode, 200, ownResponse.body);
      const own = ownResponse.json<{ data: { company: { id: string; rnc: string } } }>().data.company;
      assert.equal(own.id, companyId);
      assert.equal(own.rnc, companyRnc);
      assert.ok(!ownResponse.body.includes(otherCompanyId));

      const otherResponse = await call(testEnv.app, empresa, otherKey);
      assert.equal(otherResponse.statusCode, 200, otherResponse.body);
      const other = otherResponse.json<{ data: { company: { id: string; legalName: string } } }>().data.company;
      assert.equal(other.id, otherCompanyId);
      assert.equal(other.legalName, 'Otra Empresa SRL');
      assert.ok(!otherResponse.body.includes(companyId));
    });

    it('answers the English alias /api/v1/company with the same body as /api/v1/empresa', async () => {
      const spanish = await call(testEnv.app, empresa, otherKey);
      const english = await call(testEnv.app, { method: 'GET', path: '/api/v1/company' }, otherKey);
      assert.equal(english.statusCode, 200, english.body);
      const spanishBody = spanish.json<{ data: unknown; meta: Record<string, unknown> }>();
      const englishBody = english.json<{ data: unknown; meta: Record<string, unknown> }>();
      assert.deepEqual(englishBody.data, spanishBody.data);
      assert.deepEqual(Object.keys(englishBody.meta).sort(), Object.keys(spanishBody.meta).sort());
      assert.equal(englishBody.meta.correlationId, english.headers['x-correlation-id']);
    });
  });

  describe('derived scopes as the company route reports them', () => {
    const cases: { granted: Scope[]; effective: Scope[] }[] = [
      { granted: ['sequences:manage'], effective: ['sequences:allocate', 'sequences:manage'] },
      { granted: ['documents:create'], effective: ['documents:create', 'taxpayers:read'] },
      { granted: ['documents:read'], effective: ['documents:read', 'received:read', 'taxpayers:read'] },
      { granted: ['sequences:allocate'], effective: ['sequences:allocate'] },
      { granted: ['taxpayers:read'], effective: ['taxpayers:read'] },
    ];
    for (const { granted, effective } of cases) {
      it(`reports ${granted.join(', ')} as effective ${effective.join(', ')}`, async () => {
        const { apiKey } = await testEnv.issueKey(companyId, granted);
        const response = await call(testEnv.app, empresa, apiKey);
        assert.equal(response.statusCode, 200, response.body);
        const view = response.json<{ data: { scopes: string[]; effectiveScopes: string[] } }>().data;
        assert.deepEqual(view.scopes, granted);
        assert.deepEqual(view.effectiveScopes, effective);
      });
    }
  });

  describe('a route that declares a scope (probe routes on the real authenticator)', () => {
    let probe: App;

    before(async () => {
      probe = await startScopeProbe(testEnv);
    });

    after(async () => {
      await probe.close();
    });

    for (const scope of scopes) {
      it(`admits exactly ${scope}, every scope granting it, and refuses all the others with 403`, async () => {
        const route = { method: 'GET', path: scopeProbeUrl(scope) } as const;
        for (const granting of scopesGranting(scope)) {
          const response = await call(probe, route, keys.single.get(granting));
          assert.equal(response.statusCode, 200, `${granting} on ${scope}: ${response.body}`);
        }
        for (const other of allScopesExcept(scopesGranting(scope))) {
          assertProblem(await call(probe, route, keys.single.get(other)), 403, 'scope_missing');
        }
        const lacking = await testEnv.issueKey(companyId, allScopesExcept(scopesGranting(scope)));
        assertProblem(await call(probe, route, lacking.apiKey), 403, 'scope_missing');
      });
    }

    it("refuses a suspended company's key that holds the scope with 403 company_suspended", async () => {
      assertProblem(
        await call(probe, { method: 'GET', path: scopeProbeUrl('webhooks:manage') }, keys.suspended),
        403,
        'company_suspended',
      );
    });
  });
});

describe('derived scopes (SPEC §5)', () => {
  const derivations: { granted: Scope[]; effective: Scope[] }[] = [
    { granted: ['sequences:manage'], effective: ['sequences:manage', 'sequences:allocate'] },
    { granted: ['documents:create'], effective: ['documents:create', 'taxpayers:read'] },
    { granted: ['documents:read'], effective: ['documents:read', 'taxpayers:read', 'received:read'] },
    { granted: ['sequences:allocate'], effective: ['sequences:allocate'] },
    { granted: ['taxpayers:read'], effective: ['taxpayers:read'] },
    { granted: ['received:read'], effective: ['received:read'] },
    { granted: ['documents:send'], effective: ['documents:send'] },
    { granted: ['sequences:read'], effective: ['sequences:read'] },
    { granted: ['webhooks:manage'], effective: ['webhooks:manage'] },
    { granted: ['certification:manage'], effective: ['certification:manage'] },
    { granted: [], effective: [] },
    {
      granted: ['documents:create', 'documents:read'],
      effective: ['documents:create', 'documents:read', 'taxpayers:read', 'received:read'],
    },
    { granted: ['sequences:manage', 'sequences:allocate'], effective: ['sequences:manage', 'sequences:allocate'] },
  ];
  for (const { granted, effective } of derivations) {
    it(`${granted.length === 0 ? 'no scopes' : granted.join(' + ')} → ${effective.length === 0 ? 'nothing' : effective.join(', ')}`, () => {
      assert.deepEqual([...effectiveScopes(granted)].sort(), [...effective].sort());
    });
  }

  it('derives nothing upward: sequences:allocate does not grant sequences:manage, taxpayers:read and received:read grant no documents scope', () => {
    assert.ok(!effectiveScopes(['sequences:allocate']).has('sequences:manage'));
    assert.ok(!effectiveScopes(['taxpayers:read']).has('documents:create'));
    assert.ok(!effectiveScopes(['taxpayers:read']).has('documents:read'));
    assert.ok(!effectiveScopes(['received:read']).has('documents:read'));
  });

  const granters: { required: Scope; granting: Scope[] }[] = [
    { required: 'taxpayers:read', granting: ['documents:create', 'documents:read', 'taxpayers:read'] },
    { required: 'received:read', granting: ['documents:read', 'received:read'] },
    { required: 'sequences:allocate', granting: ['sequences:allocate', 'sequences:manage'] },
    { required: 'sequences:manage', granting: ['sequences:manage'] },
    { required: 'documents:read', granting: ['documents:read'] },
  ];
  for (const { required, granting } of granters) {
    it(`${required} is granted by ${granting.join(', ')}`, () => {
      assert.deepEqual([...scopesGranting(required)].sort(), [...granting].sort());
    });
  }
});
