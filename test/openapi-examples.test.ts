// Every example in the OpenAPI contract works (issue 32): a world is built in which each request example can
// succeed, each is posted to the running app as /docs-json shows it and must get the documented success status,
// and every example, request and response, is checked against its schema with Ajv (JSON Schema 2020-12).
import assert from 'node:assert/strict';
import dnsPromises from 'node:dns/promises';
import { syncBuiltinESMExports } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { LightMyRequestResponse } from 'fastify';
import { buildAcecf } from '../src/fiscal/responses/acecf.js';
import { signCanonicalDocument, signXml } from '../src/fiscal/xmldsig/index.js';
import { scopes } from '../src/platform/http/scopes.js';
import { installTestCertificate } from './support/archive-world.js';
import { buyerRnc, issuerRnc } from './support/ecf-documents.js';
import { certificateFingerprint, ensureTestRanges, upsertTaxpayer } from '../src/sandbox/index.js';
import { signedEcf } from './support/sandbox-documents.js';
import { startSandbox, type RunningSandbox } from './support/sandbox-kit.js';
import { opsToken, startTestApp, type TestApp } from './support/test-app.js';
import { until } from './support/until.js';
import { testSigningKey } from './support/xmldsig-kit.js';

type Json = Record<string, unknown>;
interface MediaType {
  schema?: Json;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}
interface Operation {
  operationId: string;
  deprecated?: boolean;
  security?: Record<string, unknown>[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
}
interface Contract {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json> };
}
interface Entry {
  label: string;
  path: string;
  method: string;
  operation: Operation;
}

/** The company of the certification set example (certification.routes.ts). */
const certificationRnc = '131876544';

const httpMethods = new Set(['get', 'put', 'post', 'delete', 'patch']);

function operationsOf(contract: Contract): Entry[] {
  return Object.entries(contract.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => httpMethods.has(method))
      .map(([method, operation]) => ({ label: `${method.toUpperCase()} ${path}`, path, method, operation })),
  );
}

function examplesOf(media: MediaType): unknown[] {
  return [
    ...(media.example === undefined ? [] : [media.example]),
    ...Object.values(media.examples ?? {}).map((example) => example.value),
  ];
}

/** The 2xx responses that carry a body. */
function successContent(operation: Operation): [string, string, MediaType][] {
  return Object.entries(operation.responses)
    .filter(([status]) => status.startsWith('2'))
    .flatMap(([status, response]) =>
      Object.entries(response.content ?? {}).map(
        ([type, media]) => [status, type, media] as [string, string, MediaType],
      ),
    );
}

/**
 * Operations whose body must be signed XML made by a certificate at the time of the call: the contract shows an
 * illustrative example, and this test posts a freshly signed body of the same shape (see `signedBodies`).
 */
const signedAtCallTime = new Set([
  'POST /api/v1/documentos/xml-firmado',
  'POST /api/v1/dgii/sesion',
  'POST /{environment}/{service}/fe/autenticacion/api/validacioncertificado',
  'POST /{environment}/{service}/fe/recepcion/api/ecf',
  'POST /{environment}/{service}/fe/aprobacioncomercial/api/ecf',
]);

describe('the examples of the OpenAPI contract', { timeout: 300_000 }, () => {
  let sandbox: RunningSandbox;
  let testApp: TestApp;
  let contract: Contract;
  let companyId: string;
  let apiKey: string;
  /** The world's ids that path parameters take, by path template. */
  let pathParams: Record<string, Record<string, string>>;
  let receiverToken: string | undefined;
  let certApp: TestApp | undefined;
  let certKey = '';
  let firstDocument: { id: string; eNCF: string; fechaEmision: string; montoTotal: string };

  const api = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    testApp.app.inject({
      method: method as 'GET',
      url,
      headers: { 'x-api-key': apiKey, ...headers },
      ...(payload === undefined ? {} : { payload: payload as Json }),
    });

  const realLookup = dnsPromises.lookup;
  before(async () => {
    // The machine may have no DNS: the examples' webhook host resolves to a public address (example.com's).
    Object.assign(dnsPromises, {
      lookup: (host: string, options: object) =>
        host.endsWith('.example.com')
          ? Promise.resolve([{ address: '93.184.215.14', family: 4 }])
          : realLookup(host, options),
    });
    syncBuiltinESMExports();
    // DGII is the sandbox, which knows the test signing key as the company's (POST /dgii/sesion signs with it).
    sandbox = await startSandbox();
    // With a worker: entregar's example needs a document DGII accepted.
    testApp = await startTestApp({
      roles: { http: true, work: true, schedule: true },
      env: { DGII_BASE_URL: sandbox.url, DGII_FC_BASE_URL: sandbox.url, DGII_STATUS_BASE_URL: sandbox.url },
    });
    const served = await testApp.app.inject({ url: '/docs-json' });
    assert.equal(served.statusCode, 200);
    contract = served.json<Contract>();

    // A company with an address (the union's schemas assume one), a certificate, a key with every scope, and
    // ranges of every type: 31 starts after the span of the range example, 34 is the short one the annulment
    // example withdraws the rest of once the union's 34 example has used its first number.
    companyId = await testApp.provisionCompany({
      rnc: issuerRnc,
      address: 'Av. Winston Churchill 1099, Piantini',
    });
    await installTestCertificate(testApp, companyId, issuerRnc);
    await upsertTaxpayer(sandbox.sandbox.context.db, {
      rnc: issuerRnc,
      name: 'Empresa de Prueba SRL',
      certificateSha256: [certificateFingerprint(testSigningKey().certificatePem)],
    });
    apiKey = (await testApp.issueKey(companyId, [...scopes])).apiKey;
    for (const type of ['31', '32', '33', '34', '41', '43', '44', '45', '46', '47']) {
      const [from, to] = type === '31' ? [1001, 2000] : type === '34' ? [1, 10] : [1, 1000];
      const range = await api('POST', '/api/v1/secuencias/rangos', {
        ecfType: type,
        from: `E${type}${String(from).padStart(10, '0')}`,
        to: `E${type}${String(to).padStart(10, '0')}`,
        ...(type === '32' || type === '34' ? {} : { expiresOn: '31-12-2027' }),
      });
      assert.equal(range.statusCode, 201, range.body);
    }
  });
  after(async () => {
    Object.assign(dnsPromises, { lookup: realLookup });
    syncBuiltinESMExports();
    await testApp.close();
    await certApp?.close();
    await sandbox.close();
  });

  it('gives every request body and every success response with content an example', () => {
    const missing: string[] = [];
    for (const { label, operation } of operationsOf(contract)) {
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {}))
        if (examplesOf(media).length === 0) missing.push(`${label} request ${type}`);
      for (const [status, type, media] of successContent(operation))
        if (examplesOf(media).length === 0) missing.push(`${label} ${status} ${type}`);
    }
    assert.deepEqual(missing, []);
  });

  it('checks every example against its schema (Ajv, JSON Schema 2020-12, every component registered)', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, inlineRefs: false });
    addFormats.default(ajv);
    ajv.addFormat('binary', true); // OpenAPI's raw bytes: any string
    ajv.addSchema({ $id: 'https://ecf-service.test/openapi.json', components: contract.components });
    const inContract = (schema: Json) =>
      JSON.parse(
        JSON.stringify(schema).replaceAll('"#/components/', '"https://ecf-service.test/openapi.json#/components/'),
      ) as Json;
    const failures: string[] = [];
    let checked = 0;
    const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
    const check = (where: string, schema: Json | undefined, examples: unknown[]) => {
      if (schema === undefined || examples.length === 0) return;
      const key = JSON.stringify(schema);
      const validate = compiled.get(key) ?? ajv.compile(inContract(schema));
      compiled.set(key, validate);
      for (const example of examples) {
        checked++;
        if (!validate(example)) failures.push(`${where}: ${JSON.stringify(validate.errors?.slice(0, 5))}`);
      }
    };
    for (const { label, operation } of operationsOf(contract)) {
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {}))
        check(`${label} request ${type}`, media.schema, examplesOf(media));
      for (const [status, type, media] of successContent(operation))
        check(`${label} ${status} ${type}`, media.schema, examplesOf(media));
    }
    for (const [name, schema] of Object.entries(contract.components.schemas)) {
      const { examples, ...rest } = schema;
      if (Array.isArray(examples)) check(`components.schemas.${name}`, rest, examples);
      // The union is exclusive (TipoeCF is an enum per type): each type's example matches exactly one member.
      if (Array.isArray(examples) && name.startsWith('EcfDocument') && name !== 'EcfDocumentBody')
        check(
          `EcfDocumentBody with the example of ${name}`,
          { $ref: '#/components/schemas/EcfDocumentBody' },
          examples,
        );
    }
    assert.deepEqual(failures, []);
    assert.ok(checked >= 100, `only ${String(checked)} examples checked`);
  });

  it('shows the creation body as the union of the ten per-type schemas, each example created with 201', async () => {
    const body = contract.components.schemas['EcfDocumentBody'];
    const members = (body?.['oneOf'] as { $ref: string }[]).map((member) => member.$ref);
    const types = ['31', '32', '33', '34', '41', '43', '44', '45', '46', '47'];
    assert.deepEqual(
      members,
      types.map((type) => `#/components/schemas/EcfDocument${type}`),
    );
    for (const type of types) {
      const schema = contract.components.schemas[`EcfDocument${type}`] ?? {};
      assert.equal(schema['$id'], undefined);
      assert.equal(schema['$schema'], undefined);
      assert.equal(schema['$defs'], undefined);
      const examples = schema['examples'] as Json[];
      assert.equal(examples.length, 1, `EcfDocument${type} has one example`);
      const created = await api('POST', '/api/v1/documentos', examples[0]);
      assert.equal(created.statusCode, 201, `e-CF ${type}: ${created.body}`);
      const data = created.json<{ data: { ecfType: string; eNCF: string } }>().data;
      assert.equal(data.ecfType, type);
      assert.match(data.eNCF, new RegExp(`^E${type}\\d{10}$`));
    }
    assert.doesNotMatch(JSON.stringify(contract), /#\/\$defs\//);
  });

  it('answers every request example with the documented success status', async () => {
    await buildTheRestOfTheWorld();
    const withBodies = operationsOf(contract).filter(
      ({ operation }) => operation.requestBody !== undefined && operation.deprecated !== true,
    );
    assert.ok(withBodies.length >= 17, `only ${String(withBodies.length)} operations with a body`);
    const answered: string[] = [];
    for (const entry of withBodies) {
      const { label, operation } = entry;
      const expected = Object.keys(operation.responses).filter((status) => /^2\d\d$/.test(status));
      const response = signedAtCallTime.has(label)
        ? await signedBodies[label]?.(entry)
        : await call(entry, requestExampleOf(operation.requestBody?.content['application/json']));
      assert.ok(response !== undefined, `${label}: no freshly signed body`);
      assert.ok(
        expected.includes(String(response.statusCode)),
        `${label} answered ${String(response.statusCode)}, not ${expected.join('/')}: ${response.body.slice(0, 600)}`,
      );
      answered.push(label);
      if (label === 'POST /api/v1/certificacion/iniciar') {
        const id = response.json<{ data: { id: string } }>().data.id;
        pathParams['/api/v1/certificacion/{id}/pasos/{key}/confirmar'] = { id, key: 'registrado' };
        pathParams['/api/v1/certificacion/{id}/cancelar'] = { id };
      }
    }
    assert.deepEqual(
      [...signedAtCallTime].filter((label) => !answered.includes(label)),
      [],
    );
  });

  /** The deprecated English aliases are the same route definitions: their bodies and answers are the same. */
  it('documents each alias with the examples of its Spanish route', () => {
    const byOperationId = new Map(operationsOf(contract).map((entry) => [entry.operation.operationId, entry]));
    for (const { label, operation } of operationsOf(contract).filter((entry) => entry.operation.deprecated)) {
      const spanish = byOperationId.get(operation.operationId.replace(/Alias$/, ''));
      assert.ok(spanish !== undefined, `${label} has no Spanish route`);
      assert.deepEqual(operation.requestBody, spanish.operation.requestBody, label);
      assert.deepEqual(operation.responses, spanish.operation.responses, label);
    }
  });

  async function buildTheRestOfTheWorld(): Promise<void> {
    const created = await api('POST', '/api/v1/documentos', exampleBody('POST', '/api/v1/documentos'));
    assert.equal(created.statusCode, 201, created.body);
    firstDocument = created.json<{ data: typeof firstDocument }>().data;

    const webhook = await api('POST', '/api/v1/notificaciones', { url: 'https://erp.example.com/hooks/world' });
    assert.equal(webhook.statusCode, 201, webhook.body);
    const webhookId = webhook.json<{ data: { id: string } }>().data.id;

    // An e-CF another taxpayer issued to us, received at our receiver route.
    const incoming = signedEcf('31', 4242, {
      rnc: buyerRnc,
      change: (document) => {
        const encabezado = document['Encabezado'] as Record<string, Json>;
        encabezado['Comprador'] = { RNCComprador: issuerRnc, RazonSocialComprador: 'Empresa de Prueba SRL' };
      },
    });
    receiverToken = await signedBodies[
      'POST /{environment}/{service}/fe/autenticacion/api/validacioncertificado'
    ]?.().then((answer) => answer.json<{ token: string }>().token);
    const received = await testApp.app.inject({
      method: 'POST',
      url: `/testecf/${issuerRnc}/fe/recepcion/api/ecf`,
      headers: { ...asXml, authorization: `Bearer ${String(receiverToken)}` },
      payload: incoming.xml,
    });
    assert.equal(received.statusCode, 200, received.body);
    const inbox = await api('GET', '/api/v1/recibidos');
    const receivedId = inbox.json<{ data: { id: string }[] }>().data[0]?.id ?? '';

    // Certification runs in CERT only: a second app, whose company is the one of the example set.
    certApp = await startTestApp({ env: { FISCAL_ENV: 'CERT', PUBLIC_BASE_URL: 'https://ecf.example.do' } });
    const certCompanyId = await certApp.provisionCompany({ rnc: certificationRnc, certificationEnabled: true });
    await installTestCertificate(certApp, certCompanyId, certificationRnc);
    certKey = (await certApp.issueKey(certCompanyId, ['certification:manage'])).apiKey;

    // A document DGII accepted, for entregar: DGII knows the company's certificate and ranges.
    const installed = await testApp.application.services.companies.get(companyId);
    await upsertTaxpayer(sandbox.sandbox.context.db, {
      rnc: issuerRnc,
      name: 'Empresa de Prueba SRL',
      certificateSha256: installed?.certificate === null ? [] : [installed?.certificate.fingerprintSha256 ?? ''],
    });
    await ensureTestRanges(sandbox.sandbox.context.db, issuerRnc, 'testecf', new Date());
    const toDeliver = await api('POST', '/api/v1/documentos', exampleBody('POST', '/api/v1/documentos'));
    assert.equal(toDeliver.statusCode, 201, toDeliver.body);
    const acceptedId = toDeliver.json<{ data: { id: string } }>().data.id;
    assert.equal((await api('POST', `/api/v1/documentos/${acceptedId}/enviar`)).statusCode, 202);
    await until(
      async () =>
        (await api('GET', `/api/v1/documentos/${acceptedId}/cronologia`)).json<{ data: { status: string } }>().data,
      (document) => document.status === 'accepted',
      'the document for entregar accepted',
      30_000,
    );

    pathParams = {
      '/api/v1/documentos/{id}/entregar': { id: acceptedId },
      '/internal/cloud/v1/companies/{companyId}/api-keys': { companyId },
      '/api/v1/notificaciones/{id}': { id: webhookId },
      '/api/v1/recibidos/{id}/respuesta-comercial': { id: receivedId },
    };
  }

  function exampleBody(method: string, path: string): unknown {
    const media = contract.paths[path]?.[method.toLowerCase()]?.requestBody?.content['application/json'];
    return requestExampleOf(media);
  }

  /** The body example a reader of /docs sees: the media type's, or else the one of the component it refers to. */
  function requestExampleOf(media: MediaType | undefined): unknown {
    const reference = media?.schema?.['$ref'];
    const component = typeof reference === 'string' ? reference.replace('#/components/schemas/', '') : '';
    const componentExamples = contract.components.schemas[component]?.['examples'];
    return examplesOf(media ?? {})[0] ?? (Array.isArray(componentExamples) ? componentExamples[0] : undefined);
  }

  function urlOf(path: string): string {
    const params = pathParams[path] ?? {};
    return path.replace(/\{(\w+)\}/g, (_whole, name: string) => {
      const value = params[name];
      assert.ok(value !== undefined, `no value for {${name}} in ${path}`);
      return encodeURIComponent(value);
    });
  }

  /** Posts a body the way the operation's security says (an API key, the control plane's signature, the ops token). */
  function call(entry: Entry, body: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const scheme = Object.keys(entry.operation.security?.[0] ?? {})[0];
    const url = urlOf(entry.path);
    if (scheme === 'cloudSignature') return testApp.cloud(entry.method.toUpperCase() as 'POST', url, body, headers);
    const certification = entry.path.startsWith('/api/v1/certificacion');
    const app = certification && certApp !== undefined ? certApp : testApp;
    const auth: Record<string, string> =
      scheme === 'apiKey'
        ? { 'x-api-key': certification ? certKey : apiKey }
        : scheme === 'opsToken'
          ? { authorization: `Bearer ${opsToken}` }
          : {};
    return app.app.inject({
      method: entry.method.toUpperCase() as 'POST',
      url,
      headers: { ...auth, ...headers },
      ...(body === undefined ? {} : typeof body === 'string' ? { payload: body } : { payload: body as Json }),
    });
  }

  const receiverPath = `/testecf/${issuerRnc}/fe`;
  const asXml = { 'content-type': 'application/xml' };

  /** A body of the same shape as the contract's example, signed now. */
  const signedBodies: Record<string, (entry?: Entry) => Promise<LightMyRequestResponse>> = {
    'POST /api/v1/documentos/xml-firmado': async (entry) => {
      // Signed outside the service with the next number of the world's range of type 31.
      const ranges = (await api('GET', '/api/v1/secuencias/rangos')).json<{ data: { from: string; next: string }[] }>();
      const next = ranges.data.find((range) => range.from === 'E310000001001')?.next ?? '';
      return call(entryOf(entry), { xml: signedEcf('31', Number(next.slice(3))).xml });
    },
    'POST /api/v1/dgii/sesion': async (entry) => {
      const seed = await api('GET', '/api/v1/dgii/sesion/semilla');
      const seedXml = seed.json<{ data: { seedXml: string } }>().data.seedXml;
      return call(entryOf(entry), { xml: signXml(seedXml, testSigningKey()) });
    },
    'POST /{environment}/{service}/fe/autenticacion/api/validacioncertificado': async () => {
      const seed = await testApp.app.inject({ url: `${receiverPath}/autenticacion/api/semilla` });
      return testApp.app.inject({
        method: 'POST',
        url: `${receiverPath}/autenticacion/api/validacioncertificado`,
        headers: asXml,
        payload: signXml(seed.body, testSigningKey()),
      });
    },
    'POST /{environment}/{service}/fe/recepcion/api/ecf': () => {
      const incoming = signedEcf('31', 4343, {
        rnc: buyerRnc,
        change: (document) => {
          const encabezado = document['Encabezado'] as Record<string, Json>;
          encabezado['Comprador'] = { RNCComprador: issuerRnc, RazonSocialComprador: 'Empresa de Prueba SRL' };
        },
      });
      return testApp.app.inject({
        method: 'POST',
        url: `${receiverPath}/recepcion/api/ecf`,
        headers: { ...asXml, authorization: `Bearer ${String(receiverToken)}` },
        payload: incoming.xml,
      });
    },
    'POST /{environment}/{service}/fe/aprobacioncomercial/api/ecf': () => {
      const built = buildAcecf({
        RNCEmisor: issuerRnc,
        eNCF: firstDocument.eNCF,
        FechaEmision: firstDocument.fechaEmision,
        MontoTotal: firstDocument.montoTotal,
        RNCComprador: exampleBuyerRnc(),
        Estado: '1',
        FechaHoraAprobacionComercial: '27-11-2026 10:40:00',
      });
      assert.ok(built.ok, JSON.stringify(built));
      return testApp.app.inject({
        method: 'POST',
        url: `${receiverPath}/aprobacioncomercial/api/ecf`,
        headers: { ...asXml, authorization: `Bearer ${String(receiverToken)}` },
        payload: signCanonicalDocument(built.xml, testSigningKey()),
      });
    },
  };

  function entryOf(entry: Entry | undefined): Entry {
    assert.ok(entry !== undefined);
    return entry;
  }

  function exampleBuyerRnc(): string {
    const body = exampleBody('POST', '/api/v1/documentos') as { Encabezado: { Comprador: { RNCComprador: string } } };
    return body.Encabezado.Comprador.RNCComprador;
  }
});
