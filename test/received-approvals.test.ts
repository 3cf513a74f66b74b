// Commercial approvals received (SPEC §4.9, §6.2): a buyer sends a signed ACECF about an e-CF we issued. It is
// checked (DGII's schema, the signature, the e-CF it names with that e-CF's buyer, date and total) and then recorded:
// the exact bytes as the document's acecf-xml artefact, the decision on GET /documentos/:id, a timeline event and a
// domain event. A failure of any check stores nothing; a document takes one commercial answer.
import assert from 'node:assert/strict';
import { createHash, createPrivateKey } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { buildAcecf, type Acecf } from '../src/fiscal/responses/acecf.js';
import { signCanonicalDocument, type SigningKey } from '../src/fiscal/xmldsig/index.js';
import { fixedClock } from '../src/platform/clock.js';
import { createSelfSignedP12 } from '../src/platform/crypto/test-certificate.js';
import type { ProblemCode } from '../src/platform/result.js';
import { officialXsdDir } from './support/dgii-files.js';
import { buyerRnc, ecfDocuments, issuerRnc } from './support/ecf-documents.js';
import { nextRnc, startTestApp, type TestApp } from './support/test-app.js';
import { requireTool } from './support/tools.js';
import { verifyWithXmlsec1 } from './support/xmldsig-kit.js';

type Json = Record<string, unknown>;

interface DocumentBody {
  id: string;
  status: string;
  eNCF: string;
  fechaEmision: string;
  montoTotal: string;
  rncComprador: string | null;
  artefacts: { type: string; version: number; sha256: string; size: number }[];
  commercialResponse: {
    decision: string;
    reason: string | null;
    rncComprador: string;
    fechaHoraAprobacionComercial: string | null;
    receivedAt: string;
    sha256: string;
  } | null;
}

function keyOf(commonName: string, serialNumber: string): SigningKey {
  const certificate = createSelfSignedP12({
    commonName,
    serialNumber,
    notBefore: new Date('2026-01-01'),
    notAfter: new Date('2030-01-01'),
    password: 'clave',
  });
  return { privateKey: createPrivateKey(certificate.privateKeyPem), certificatePem: certificate.certificatePem };
}

const approvedAt = '21-11-2026 10:40:00';

/** The buyer's ACECF for `document`, with `change` applied to the fields, unsigned (canonical, as buildAcecf writes). */
function acecfFor(document: DocumentBody, issuer: string, change: Partial<Acecf> = {}): string {
  const approval = {
    RNCEmisor: issuer,
    eNCF: document.eNCF,
    FechaEmision: document.fechaEmision,
    MontoTotal: document.montoTotal,
    RNCComprador: document.rncComprador ?? buyerRnc,
    Estado: '1',
    FechaHoraAprobacionComercial: approvedAt,
    ...change,
  } as Acecf;
  const built = buildAcecf(approval);
  assert.ok(built.ok, JSON.stringify(built));
  return built.xml;
}

describe('commercial approvals received for our e-CF (ACECF)', () => {
  let app: TestApp;
  let companyId: string;
  let otherCompanyId: string;
  let otherRnc: string;
  let key: string;
  let otherKey: string;
  const buyer = keyOf('COMPRADOR DE PRUEBA', buyerRnc);
  const clock = fixedClock(new Date('2026-11-21T14:30:00Z'));

  async function setUpCompany(rnc: string): Promise<{ id: string; apiKey: string }> {
    const id = await app.provisionCompany({ rnc });
    const certificate = createSelfSignedP12({
      commonName: 'EMISOR DE PRUEBA',
      serialNumber: rnc,
      notBefore: new Date('2026-01-01'),
      notAfter: new Date('2030-01-01'),
      password: 'clave',
    });
    const installed = await app.sendEvent('certificate.installed', {
      companyId: id,
      p12Base64: certificate.p12.toString('base64'),
      password: 'clave',
    });
    assert.equal(installed.statusCode, 200, installed.body);
    const { apiKey } = await app.issueKey(id, ['documents:create', 'documents:read', 'sequences:manage']);
    for (const type of ['31', '32']) {
      const range = await app.app.inject({
        method: 'POST',
        url: '/api/v1/secuencias/rangos',
        headers: { 'x-api-key': apiKey },
        payload: {
          ecfType: type,
          from: `E${type}0000000001`,
          to: `E${type}0000000100`,
          ...(type === '32' ? {} : { expiresOn: '31-12-2027' }),
        },
      });
      assert.equal(range.statusCode, 201, range.body);
    }
    return { id, apiKey };
  }

  before(async () => {
    // The receiver token is the receiver suite's subject; here the route is reached without one.
    app = await startTestApp({ clock, env: { ECF_XSD_DIR: officialXsdDir, RECEIVER_AUTH_MODE: 'disabled' } });
    ({ id: companyId, apiKey: key } = await setUpCompany(issuerRnc));
    otherRnc = nextRnc();
    ({ id: otherCompanyId, apiKey: otherKey } = await setUpCompany(otherRnc));
  });
  after(() => app.close());

  const get = (url: string, apiKey = key) => app.app.inject({ method: 'GET', url, headers: { 'x-api-key': apiKey } });
  const view = async (id: string, apiKey = key) => {
    const response = await get(`/api/v1/documentos/${id}`, apiKey);
    assert.equal(response.statusCode, 200, response.body);
    return response.json<{ data: DocumentBody }>().data;
  };
  const timeline = async (id: string) =>
    (await get(`/api/v1/documentos/${id}/cronologia`)).json<{
      data: { status: string; events: { type: string; status: string | null; cause: string }[] };
    }>().data;
  const create = async (body: Json = ecfDocuments['31'], apiKey = key) => {
    const response = await app.app.inject({
      method: 'POST',
      url: '/api/v1/documentos',
      headers: { 'x-api-key': apiKey },
      payload: body,
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json<{ data: DocumentBody }>().data;
  };
  const receive = (xml: string | Buffer, company = companyId) =>
    app.application.services.receivedApprovals.receive(company, Buffer.isBuffer(xml) ? xml : Buffer.from(xml, 'utf8'));
  const sign = (xml: string) => signCanonicalDocument(xml, buyer);
  const domainEventsOf = (documentId: string) =>
    app.application.database.db
      .selectFrom('domain_events')
      .select(['type', 'payload'])
      .where('type', '=', 'document.commercial_approval_received')
      .where(sql<string>`payload->>'documentId'`, '=', documentId)
      .execute();

  it('records an approval: the decision on the document, the exact bytes as acecf-xml, the timeline and the domain event', async (t) => {
    const document = await create();
    const xml = sign(acecfFor(document, issuerRnc));
    const sha256 = createHash('sha256').update(xml).digest('hex');

    const received = await receive(xml);
    assert.deepEqual(received, { ok: true, value: { documentId: document.id, decision: 'approved' } });

    const after = await view(document.id);
    assert.equal(after.status, 'signed', 'a commercial answer does not change where the document stands with DGII');
    assert.deepEqual(after.commercialResponse, {
      decision: 'approved',
      reason: null,
      rncComprador: buyerRnc,
      fechaHoraAprobacionComercial: approvedAt,
      receivedAt: '2026-11-21T14:30:00.000Z',
      sha256,
    });
    const artefact = after.artefacts.find((candidate) => candidate.type === 'acecf-xml');
    assert.deepEqual(artefact && { version: artefact.version, sha256: artefact.sha256, size: artefact.size }, {
      version: 1,
      sha256,
      size: Buffer.byteLength(xml),
    });

    const download = await get(`/api/v1/documentos/${document.id}/artefactos/acecf-xml`);
    assert.equal(download.statusCode, 200);
    assert.match(String(download.headers['content-type']), /^application\/xml/);
    assert.equal(download.rawPayload.toString('utf8'), xml, 'the ACECF is archived byte for byte');
    assert.equal(download.headers['x-content-sha256'], sha256);
    if (requireTool(t, 'xmlsec1'))
      assert.equal(verifyWithXmlsec1(download.rawPayload.toString('utf8'), buyer.certificatePem).ok, true);

    const events = (await timeline(document.id)).events;
    assert.deepEqual(
      events.map((event) => [event.type, event.status]),
      [
        ['created', 'signed'],
        ['commercial.approved', null],
      ],
    );
    assert.equal(events[1]?.cause, `ACECF of ${approvedAt} from buyer ${buyerRnc}: approved (Estado 1)`);

    const outbox = await domainEventsOf(document.id);
    assert.deepEqual(
      outbox.map((event) => event.payload),
      [
        {
          documentId: document.id,
          eNCF: document.eNCF,
          ecfType: '31',
          decision: 'approved',
          reason: null,
          rncComprador: buyerRnc,
        },
      ],
    );
  });

  it('records a rejection with its reason (DetalleMotivoRechazo)', async () => {
    const document = await create();
    const reason = 'Mercancía dañada & incompleta';
    const received = await receive(sign(acecfFor(document, issuerRnc, { Estado: '2', DetalleMotivoRechazo: reason })));
    assert.deepEqual(received, { ok: true, value: { documentId: document.id, decision: 'rejected' } });
    const after = await view(document.id);
    assert.equal(after.commercialResponse?.decision, 'rejected');
    assert.equal(after.commercialResponse.reason, reason);
    const events = (await timeline(document.id)).events;
    assert.equal(events.at(-1)?.type, 'commercial.rejected');
    assert.equal(events.at(-1)?.cause, `ACECF of ${approvedAt} from buyer ${buyerRnc}: rejected (Estado 2): ${reason}`);
    assert.deepEqual(
      (await domainEventsOf(document.id)).map((event) => (event.payload as Json)['decision']),
      ['rejected'],
    );
  });

  it('answers the same ACECF again as the first time and records nothing more; refuses a different one', async () => {
    const document = await create();
    const first = sign(acecfFor(document, issuerRnc));
    assert.equal((await receive(first)).ok, true);
    const before = { view: await view(document.id), events: (await timeline(document.id)).events.length };

    clock.advance(60_000);
    assert.deepEqual(await receive(first), { ok: true, value: { documentId: document.id, decision: 'approved' } });
    const rejection = await receive(
      sign(acecfFor(document, issuerRnc, { Estado: '2', DetalleMotivoRechazo: 'Cambié de opinión' })),
    );
    assert.equal(rejection.ok ? undefined : rejection.failure.code, 'acecf_already_received');
    assert.match(rejection.ok ? '' : rejection.failure.detail, new RegExp(`${document.id}.*approved`));

    assert.deepEqual(
      await view(document.id),
      before.view,
      'the first answer stands: same decision, same bytes, same artefacts',
    );
    assert.equal((await timeline(document.id)).events.length, before.events);
    assert.equal((await domainEventsOf(document.id)).length, 1);
  });

  describe('refusals, each with its code, storing nothing', () => {
    let document: DocumentBody;
    let consumer: DocumentBody;
    let foreign: DocumentBody;

    before(async () => {
      document = await create();
      consumer = await create(ecfDocuments['32']);
      const body = structuredClone(ecfDocuments['31']) as { Encabezado: { Emisor: Json } };
      body.Encabezado.Emisor = { ...body.Encabezado.Emisor, RNCEmisor: otherRnc };
      foreign = await create(body, otherKey);
    });

    const withMontoTotal = (xml: string, amount: string) =>
      xml.replace(/<MontoTotal>[^<]*<\/MontoTotal>/, `<MontoTotal>${amount}</MontoTotal>`);
    const cases: [string, () => string | Buffer, ProblemCode, string?][] = [
      ['not XML', () => Buffer.from('this is not XML at all'), 'acecf_malformed'],
      [
        'XML with a DOCTYPE (XXE)',
        () =>
          '<?xml version="1.0"?><!DOCTYPE ACECF [<!ENTITY x SYSTEM "file:///etc/passwd">]><ACECF><DetalleAprobacionComercial>&x;</DetalleAprobacionComercial></ACECF>',
        'acecf_malformed',
      ],
      [
        'another document (an ARECF)',
        () =>
          sign(
            '<?xml version="1.0" encoding="utf-8"?><ARECF><DetalleAcusedeRecibo><Version>1.0</Version></DetalleAcusedeRecibo></ARECF>',
          ),
        'acecf_malformed',
      ],
      // DGII's simulator once sent "35400": the XSD demands two decimals.
      [
        'MontoTotal without decimals (XSD-invalid)',
        () => sign(withMontoTotal(acecfFor(document, issuerRnc), document.montoTotal.replace(/\.\d+$/, ''))),
        'acecf_schema_invalid',
      ],
      ['an unsigned ACECF', () => acecfFor(document, issuerRnc), 'acecf_not_verified'],
      [
        'a signature that no longer matches (changed after signing)',
        () => sign(acecfFor(document, issuerRnc)).replace(approvedAt, '21-11-2026 10:41:00'),
        'acecf_not_verified',
      ],
      [
        'a rejection without its reason',
        () => sign(acecfFor(document, issuerRnc).replace('<Estado>1</Estado>', '<Estado>2</Estado>')),
        'acecf_decision_invalid',
        '/ACECF/DetalleAprobacionComercial/DetalleMotivoRechazo',
      ],
      [
        'an unknown e-NCF',
        () => sign(acecfFor(document, issuerRnc, { eNCF: 'E310000000099' })),
        'acecf_no_matching_document',
        '/ACECF/DetalleAprobacionComercial/eNCF',
      ],
      [
        'another issuer (RNCEmisor)',
        () => sign(acecfFor(document, otherRnc)),
        'acecf_no_matching_document',
        '/ACECF/DetalleAprobacionComercial/RNCEmisor',
      ],
      [
        "another company's document",
        () => sign(acecfFor(foreign, otherRnc)),
        'acecf_no_matching_document',
        '/ACECF/DetalleAprobacionComercial/RNCEmisor',
      ],
      [
        'a type that takes no approval (32)',
        () => sign(acecfFor(consumer, issuerRnc, { RNCComprador: buyerRnc })),
        'acecf_not_applicable',
      ],
      [
        'another buyer',
        () => sign(acecfFor(document, issuerRnc, { RNCComprador: otherRnc })),
        'acecf_buyer_mismatch',
        '/ACECF/DetalleAprobacionComercial/RNCComprador',
      ],
      [
        'another issue date',
        () => sign(acecfFor(document, issuerRnc, { FechaEmision: '16-11-2026' })),
        'acecf_date_mismatch',
        '/ACECF/DetalleAprobacionComercial/FechaEmision',
      ],
      [
        'a wrong amount (one cent more)',
        () =>
          sign(
            acecfFor(document, issuerRnc, {
              MontoTotal: (BigInt(document.montoTotal.replace('.', '')) + 1n).toString().replace(/(\d{2})$/, '.$1'),
            }),
          ),
        'acecf_amount_mismatch',
        '/ACECF/DetalleAprobacionComercial/MontoTotal',
      ],
    ];

    for (const [name, input, code, pointer] of cases) {
      it(`refuses ${name}: ${code}`, async () => {
        const result = await receive(input());
        assert.ok(!result.ok, `${name} was accepted`);
        assert.equal(result.failure.code, code, result.failure.detail);
        if (pointer !== undefined)
          assert.ok(
            result.failure.errors?.some((error) => error.pointer === pointer),
            `no error at ${pointer}: ${JSON.stringify(result.failure.errors)}`,
          );
      });
    }

    it("refuses our document's ACECF delivered to another company", async () => {
      const result = await receive(sign(acecfFor(document, issuerRnc)), otherCompanyId);
      assert.equal(result.ok ? undefined : result.failure.code, 'acecf_no_matching_document');
    });

    it('stored nothing for any of them', async () => {
      for (const [subject, apiKey] of [
        [document, key],
        [consumer, key],
        [foreign, otherKey],
      ] as const) {
        const after = await view(subject.id, apiKey);
        assert.equal(after.commercialResponse, null);
        assert.deepEqual(after.artefacts.map((artefact) => artefact.type).sort(), [
          'signed-xml',
          'source-json',
          'source-xml',
        ]);
        assert.equal((await get(`/api/v1/documentos/${subject.id}/artefactos/acecf-xml`, apiKey)).statusCode, 404);
        assert.equal(
          await app.application.blobs.head(
            `documents/${apiKey === key ? companyId : otherCompanyId}/2026-11-21/${subject.id}.acecf-xml.v1.xml`,
          ),
          undefined,
        );
        assert.equal((await domainEventsOf(subject.id)).length, 0);
      }
      assert.deepEqual(
        (await timeline(document.id)).events.map((event) => event.type),
        ['created'],
      );
    });

    it('then records the right one', async () => {
      assert.deepEqual(await receive(sign(acecfFor(document, issuerRnc))), {
        ok: true,
        value: { documentId: document.id, decision: 'approved' },
      });
    });
  });

  describe('through the receiver route (POST /{env}/{rnc}/fe/aprobacioncomercial/api/ecf)', () => {
    const post = (xml: string, url = `/testecf/${issuerRnc}/fe/aprobacioncomercial/api/ecf`) =>
      app.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/xml' }, payload: xml });
    const multipart = (xml: string) => {
      const boundary = 'acecf-boundary';
      const payload = `--${boundary}\r\nContent-Disposition: form-data; name="xml"; filename="${buyerRnc}E310000000001.xml"\r\nContent-Type: text/xml\r\n\r\n${xml}\r\n--${boundary}--\r\n`;
      return app.app.inject({
        method: 'POST',
        url: `/TestECF/${issuerRnc}/FE/AprobacionComercial/api/ecf`,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        payload,
      });
    };

    it('answers 200 and records the approval sent as application/xml', async () => {
      const document = await create();
      const xml = sign(acecfFor(document, issuerRnc));
      const response = await post(xml);
      assert.equal(response.statusCode, 200, response.body);
      const after = await view(document.id);
      assert.equal(after.commercialResponse?.decision, 'approved');
      assert.equal(after.commercialResponse.sha256, createHash('sha256').update(xml).digest('hex'));
    });

    it('answers 200 for a rejection sent as multipart (field xml), on a path in other letter case', async () => {
      const document = await create();
      const response = await multipart(
        sign(acecfFor(document, issuerRnc, { Estado: '2', DetalleMotivoRechazo: 'Precio distinto al pactado' })),
      );
      assert.equal(response.statusCode, 200, response.body);
      assert.equal((await view(document.id)).commercialResponse?.reason, 'Precio distinto al pactado');
    });

    it('answers 400 with the reason, storing nothing, for an approval that does not match', async () => {
      const document = await create();
      const response = await post(sign(acecfFor(document, issuerRnc, { FechaEmision: '14-11-2026' })));
      assert.equal(response.statusCode, 400, response.body);
      assert.match(response.json<{ mensaje: string }>().mensaje, /FechaEmision/);
      assert.equal((await view(document.id)).commercialResponse, null);
    });
  });
});
