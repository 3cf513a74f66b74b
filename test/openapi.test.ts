// The OpenAPI contract at /docs-json: valid 3.1, every operation named and described, schemas as named
// components, aliases deprecated; published in development, hidden in production unless enabled (SPEC §4.11).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startTestApp, type TestApp } from './support/test-app.js';

interface MediaType {
  schema?: unknown;
}
interface Operation {
  operationId?: string;
  summary?: string;
  deprecated?: boolean;
  security?: unknown[];
  parameters?: { name: string; in: string; schema?: Record<string, unknown> }[];
  responses?: Record<string, { description?: string; content?: Record<string, MediaType> }>;
}
interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

const httpMethods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

function operations(
  document: OpenApiDocument,
): { label: string; path: string; method: string; operation: Operation }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => httpMethods.has(method))
      .map(([method, operation]) => ({ label: `${method.toUpperCase()} ${path}`, path, method, operation })),
  );
}

describe('the OpenAPI contract in development', () => {
  let testApp: TestApp;
  let document: OpenApiDocument;
  before(async () => {
    testApp = await startTestApp();
    const response = await testApp.app.inject({ url: '/docs-json' });
    assert.equal(response.statusCode, 200);
    document = response.json<OpenApiDocument>();
  });
  after(async () => {
    await testApp.close();
  });

  it('is served as JSON and is a valid OpenAPI 3.1 document', async () => {
    const response = await testApp.app.inject({ url: '/docs-json' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^application\/json/);
    assert.match(document.openapi, /^3\.1\.\d+$/);
    assert.equal(document.info.title, 'ecf-service');
    const validator = new Validator();
    const result = await validator.validate(response.json<Record<string, unknown>>());
    assert.deepEqual(result.errors, undefined);
    assert.equal(result.valid, true);
    assert.equal(validator.version, '3.1');
    // Every $ref points at something that exists.
    assert.doesNotThrow(() => validator.resolveRefs());
  });

  it('documents the routes the app serves, and not its own documentation routes', () => {
    const labels = operations(document).map((entry) => entry.label);
    for (const expected of [
      'GET /health',
      'GET /ready',
      'GET /metrics',
      'GET /api/v1/empresa',
      'GET /api/v1/company',
      'POST /api/v1/secuencias/rangos',
      'GET /api/v1/secuencias/rangos',
      'GET /api/v1/secuencias/rangos/{id}',
      'POST /api/v1/secuencias/asignaciones',
      'GET /api/v1/secuencias/asignaciones',
      'GET /api/v1/secuencias/asignaciones/{id}',
      'POST /api/v1/secuencias/asignaciones/{id}/cancelar',
      'POST /api/v1/secuencias/anulaciones',
      'GET /api/v1/secuencias/anulaciones',
      'GET /api/v1/secuencias/anulaciones/quemadas',
      'GET /api/v1/secuencias/anulaciones/{id}',
      'POST /api/v1/secuencias/anulaciones/{id}/reintentar',
      'POST /api/v1/documentos',
      'POST /api/v1/documentos/xml-firmado',
      'POST /api/v1/documentos/vista-previa',
      'GET /api/v1/documentos',
      'GET /api/v1/documentos/{id}',
      'GET /api/v1/documentos/{id}/artefactos/{type}',
      'GET /api/v1/documentos/{id}/normalizado',
      'GET /api/v1/documentos/{id}/impresion',
      'GET /api/v1/documentos/{id}/cronologia',
      'POST /api/v1/documentos/{id}/enviar',
      'POST /api/v1/documentos/{id}/actualizar-estado',
      'POST /api/v1/documentos/{id}/reintentar',
      'GET /api/v1/trabajos-fallidos',
      'GET /api/v1/catalogos',
      'GET /api/v1/catalogos/{catalog}',
      'GET /api/v1/esquemas/ecf/{type}',
      'GET /api/v1/contribuyentes/{rnc}',
      'GET /internal/health/dgii',
      'POST /api/v1/dgii/prueba-conexion',
      'GET /api/v1/dgii/sesion/semilla',
      'POST /api/v1/dgii/sesion',
      'POST /internal/cloud/v1/events',
      'POST /internal/cloud/v1/companies/{companyId}/api-keys',
      'GET /internal/cloud/v1/companies/{companyId}/api-keys',
      'DELETE /internal/cloud/v1/companies/{companyId}/api-keys/{keyId}',
      'GET /api/v1/notificaciones/tipos-evento',
      'POST /api/v1/notificaciones',
      'GET /api/v1/notificaciones',
      'GET /api/v1/notificaciones/entregas',
      'POST /api/v1/notificaciones/entregas/{deliveryId}/reenvios',
      'GET /api/v1/notificaciones/{id}',
      'PATCH /api/v1/notificaciones/{id}',
      'POST /api/v1/notificaciones/{id}/rotar-secreto',
      'POST /api/v1/notificaciones/{id}/prueba',
      'GET /api/v1/webhooks/deliveries',
      'GET /api/v1/recibidos',
      'GET /api/v1/recibidos/{id}',
      'GET /api/v1/recibidos/{id}/artefactos/{type}',
      'POST /api/v1/recibidos/{id}/respuesta-comercial',
      'GET /{environment}/{service}/fe/autenticacion/api/semilla',
      'POST /{environment}/{service}/fe/autenticacion/api/validacioncertificado',
      'POST /{environment}/{service}/fe/recepcion/api/ecf',
      'POST /{environment}/{service}/fe/aprobacioncomercial/api/ecf',
    ]) {
      assert.ok(labels.includes(expected), `${expected} is missing from ${labels.join(', ')}`);
    }
    assert.ok(
      !labels.some((label) => label.includes('/docs')),
      `documentation routes leaked into the contract: ${labels.join(', ')}`,
    );
  });

  it('gives every operation a unique operationId and a summary', () => {
    const all = operations(document);
    assert.ok(all.length >= 9);
    const ids = new Set<string>();
    for (const { label, operation } of all) {
      assert.equal(typeof operation.operationId, 'string', `${label} has no operationId`);
      assert.match(operation.operationId ?? '', /^[A-Za-z][A-Za-z0-9]*$/, `${label}: operationId`);
      assert.ok(!ids.has(operation.operationId ?? ''), `${label} repeats operationId ${operation.operationId ?? ''}`);
      ids.add(operation.operationId ?? '');
      assert.equal(typeof operation.summary, 'string', `${label} has no summary`);
      assert.notEqual(operation.summary?.trim(), '', `${label} has an empty summary`);
    }
  });

  it('gives every operation at least one response with a schema (a 204 has none)', () => {
    for (const { label, operation } of operations(document)) {
      const responses = Object.entries(operation.responses ?? {});
      assert.ok(responses.length > 0, `${label} documents no response`);
      const withSchema = responses.filter(([, response]) =>
        Object.values(response.content ?? {}).some((media) => media.schema !== undefined),
      );
      const noContentOnly = responses.every(([status]) => status === '204');
      if (noContentOnly) {
        assert.equal(withSchema.length, 0, `${label}: a 204 carries no body`);
      } else {
        assert.ok(withSchema.length > 0, `${label} documents no response schema`);
      }
    }
  });

  it('pages every list with the same limit (default 50, at most 200) and cursor (DESIGN §4)', () => {
    const lists = operations(document).filter(({ operation }) =>
      JSON.stringify(operation.responses?.['200'] ?? {}).includes('#/components/schemas/ListMeta'),
    );
    assert.ok(lists.length >= 16, `only ${String(lists.length)} list operations`);
    for (const { label, operation } of lists) {
      const query = (name: string) =>
        operation.parameters?.find((parameter) => parameter.in === 'query' && parameter.name === name)?.schema;
      assert.deepEqual(query('limit'), { type: 'integer', minimum: 1, maximum: 200, default: 50 }, `${label}: limit`);
      assert.deepEqual(query('cursor'), { type: 'string', maxLength: 200 }, `${label}: cursor`);
    }
  });

  it('documents /metrics as Prometheus text, not JSON', () => {
    const content = document.paths['/metrics']?.get?.responses?.['200']?.content ?? {};
    assert.deepEqual(Object.keys(content), ['text/plain']);
  });

  it('declares how each operation is authenticated', () => {
    assert.deepEqual(Object.keys(document.components.securitySchemes).sort(), ['apiKey', 'cloudSignature', 'opsToken']);
    const security = (path: string, method: string) => document.paths[path]?.[method]?.security;
    assert.deepEqual(security('/health', 'get'), []);
    assert.deepEqual(security('/metrics', 'get'), [{ opsToken: [] }]);
    assert.deepEqual(security('/api/v1/empresa', 'get'), [{ apiKey: [] }]);
    assert.deepEqual(security('/internal/cloud/v1/events', 'post'), [{ cloudSignature: [] }]);
  });

  it('names its component schemas, with no generated def-N names', () => {
    const names = Object.keys(document.components.schemas);
    for (const expected of [
      'Company',
      'CompanyView',
      'Problem',
      'FieldError',
      'Meta',
      'ListMeta',
      'IssuedApiKey',
      'IssueApiKey',
      'ApiKeyMetadata',
      'ControlPlaneEvent',
      'EventOutcome',
    ]) {
      assert.ok(names.includes(expected), `component ${expected} is missing from ${names.join(', ')}`);
    }
    assert.deepEqual(
      names.filter((name) => /^def-\d+$/.test(name)),
      [],
    );
    assert.doesNotMatch(JSON.stringify(document), /#\/components\/schemas\/def-\d+/);
  });

  it('refers to the named components from operations instead of inlining them', () => {
    const company = JSON.stringify(document.paths['/api/v1/empresa']?.get?.responses?.['200']);
    assert.match(company, /"\$ref":"#\/components\/schemas\/CompanyView"/);
    assert.match(company, /"\$ref":"#\/components\/schemas\/Meta"/);
    const issue = JSON.stringify(document.paths['/internal/cloud/v1/companies/{companyId}/api-keys']?.post);
    assert.match(issue, /"\$ref":"#\/components\/schemas\/IssueApiKey"/);
    assert.match(issue, /"\$ref":"#\/components\/schemas\/IssuedApiKey"/);
  });

  it('marks the English alias deprecated and the Spanish route not', () => {
    const spanish = document.paths['/api/v1/empresa']?.get;
    const english = document.paths['/api/v1/company']?.get;
    assert.ok(spanish !== undefined && english !== undefined);
    assert.equal(english.deprecated, true);
    assert.notEqual(spanish.deprecated, true);
    assert.notEqual(english.operationId, spanish.operationId);
    assert.deepEqual(english.responses, spanish.responses);
    // Nothing but aliases is deprecated.
    const deprecated = operations(document)
      .filter(({ operation }) => operation.deprecated === true)
      .map(({ label }) => label);
    assert.deepEqual(deprecated.sort(), [
      'GET /api/v1/catalogs',
      'GET /api/v1/catalogs/{catalog}',
      'GET /api/v1/certification',
      'GET /api/v1/certification/{id}',
      'GET /api/v1/certification/{id}/cases',
      'GET /api/v1/certification/{id}/printed-representations',
      'GET /api/v1/company',
      'GET /api/v1/dgii/session/seed',
      'GET /api/v1/documents',
      'GET /api/v1/documents/{id}',
      'GET /api/v1/documents/{id}/artifacts/{type}',
      'GET /api/v1/documents/{id}/normalized',
      'GET /api/v1/documents/{id}/printable',
      'GET /api/v1/documents/{id}/timeline',
      'GET /api/v1/failed-jobs',
      'GET /api/v1/received',
      'GET /api/v1/received/{id}',
      'GET /api/v1/received/{id}/artifacts/{type}',
      'GET /api/v1/received/{id}/printable',
      'GET /api/v1/schemas/ecf/{type}',
      'GET /api/v1/sequences/allocations',
      'GET /api/v1/sequences/allocations/{id}',
      'GET /api/v1/sequences/annulments',
      'GET /api/v1/sequences/annulments/burned',
      'GET /api/v1/sequences/annulments/{id}',
      'GET /api/v1/sequences/ranges',
      'GET /api/v1/sequences/ranges/{id}',
      'GET /api/v1/taxpayers/{rnc}',
      'GET /api/v1/webhooks',
      'GET /api/v1/webhooks/deliveries',
      'GET /api/v1/webhooks/event-types',
      'GET /api/v1/webhooks/{id}',
      'PATCH /api/v1/webhooks/{id}',
      'POST /api/v1/certification/start',
      'POST /api/v1/certification/{id}/cancel',
      'POST /api/v1/certification/{id}/complete',
      'POST /api/v1/certification/{id}/run',
      'POST /api/v1/certification/{id}/steps/{key}/confirm',
      'POST /api/v1/dgii/connection-test',
      'POST /api/v1/dgii/session',
      'POST /api/v1/documents',
      'POST /api/v1/documents/preview',
      'POST /api/v1/documents/signed-xml',
      'POST /api/v1/documents/{id}/deliver',
      'POST /api/v1/documents/{id}/refresh-status',
      'POST /api/v1/documents/{id}/retry',
      'POST /api/v1/documents/{id}/send',
      'POST /api/v1/received/{id}/commercial-response',
      'POST /api/v1/sequences/allocations',
      'POST /api/v1/sequences/allocations/{id}/cancel',
      'POST /api/v1/sequences/annulments',
      'POST /api/v1/sequences/annulments/{id}/retry',
      'POST /api/v1/sequences/ranges',
      'POST /api/v1/webhooks',
      'POST /api/v1/webhooks/deliveries/{deliveryId}/resend',
      'POST /api/v1/webhooks/{id}/rotate-secret',
      'POST /api/v1/webhooks/{id}/test',
    ]);
  });

  it('serves the documentation UI at /docs', async () => {
    let response = await testApp.app.inject({ url: '/docs' });
    for (let hops = 0; response.statusCode >= 300 && response.statusCode < 400 && hops < 3; hops++) {
      const location = String(response.headers.location);
      response = await testApp.app.inject({ url: new URL(location, 'http://localhost/docs').pathname });
    }
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/html/);
    assert.match(response.body, /swagger-ui/i);
  });
});

for (const [label, env, status] of [
  ['in production', { NODE_ENV: 'production', LOG_LEVEL: 'silent' }, 404],
  [
    'in production with OPENAPI_ENABLED=true',
    { NODE_ENV: 'production', LOG_LEVEL: 'silent', OPENAPI_ENABLED: 'true' },
    200,
  ],
  [
    'in development with OPENAPI_ENABLED=false',
    { NODE_ENV: 'development', LOG_LEVEL: 'silent', OPENAPI_ENABLED: 'false' },
    404,
  ],
] as const) {
  describe(`the documentation routes ${label}`, () => {
    let testApp: TestApp;
    before(async () => {
      testApp = await startTestApp({ env });
    });
    after(async () => {
      await testApp.close();
    });

    it(`run with the configuration asked for (MASTER_KEY present, openApiEnabled ${String(status === 200)})`, () => {
      assert.equal(testApp.config.nodeEnv, env.NODE_ENV);
      assert.equal(testApp.config.openApiEnabled, status === 200);
    });

    for (const url of ['/docs', '/docs-json']) {
      it(`answer ${url} with ${status}`, async () => {
        const response = await testApp.app.inject({ url });
        assert.equal(response.statusCode, status, response.body.slice(0, 300));
        if (status === 404) {
          assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
          assert.equal(response.json<{ code: string }>().code, 'route_not_found');
        } else if (url === '/docs-json') {
          assert.match(response.json<{ openapi: string }>().openapi, /^3\.1\./);
        } else {
          assert.match(String(response.headers['content-type']), /^text\/html/);
        }
      });
    }

    it('keep the rest of the app serving', async () => {
      const response = await testApp.app.inject({ url: '/health' });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { status: 'ok' });
    });
  });
}
