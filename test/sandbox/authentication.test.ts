// DGII's authentication service as the sandbox emulates it: a one-time seed, served like DGII serves it; a signed
// seed back for a one-hour token; every refusal DGII makes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signXml } from '../../src/fiscal/xmldsig/index.js';
import { parseSemilla } from '../../src/fiscal/responses/semilla.js';
import { createSelfSignedP12 } from '../../src/platform/crypto/test-certificate.js';
import { createPrivateKey } from 'node:crypto';
import { certificateFingerprint } from '../../src/sandbox/index.js';
import { testSigningKey } from '../support/xmldsig-kit.js';
import { fixedClock, getSeed, startSandbox, xmlForm, type RunningSandbox } from '../support/sandbox-kit.js';

const issuerRnc = '130000006';

describe('sandbox: authentication (semilla, validarsemilla)', () => {
  let running: RunningSandbox;
  const clock = fixedClock(new Date('2026-11-21T14:00:00Z'));
  const key = testSigningKey();

  before(async () => {
    running = await startSandbox({ clock });
    const registered = await running.admin('POST', '/taxpayers', {
      rnc: issuerRnc,
      name: 'EMISOR DE PRUEBA SRL',
      certificates: [key.certificatePem],
    });
    assert.equal(registered.status, 201);
  });
  after(() => running.close());

  async function validate(xml: string, environment = 'testecf') {
    const response = await fetch(`${running.url}/${environment}/autenticacion/api/autenticacion/validarsemilla`, {
      method: 'POST',
      body: xmlForm(xml, 'semilla.xml'),
    });
    return { status: response.status, body: (await response.json()) as unknown };
  }

  it('serves a seed like DGII: BOM, indented SemillaModel, a 172-character valor, fecha in GMT-4 with 7 decimals', async () => {
    const bytes = Buffer.from(
      await (await fetch(`${running.url}/testecf/autenticacion/api/autenticacion/semilla`)).arrayBuffer(),
    );
    assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    const seed = await getSeed(running.url);
    assert.match(seed, /\r\n {2}<valor>/);
    const parsed = parseSemilla(seed);
    assert.ok(parsed.ok);
    assert.equal(parsed.value.valor.length, 172);
    assert.equal(parsed.value.fecha, '2026-11-21T10:00:00.0000000-04:00');
    assert.deepEqual(officialVerdict(seed), []);
  });

  it('answers paths in any letter case', async () => {
    const response = await fetch(`${running.url}/TesteCF/Autenticacion/api/Autenticacion/Semilla`);
    assert.equal(response.status, 200);
    assert.equal((await fetch(`${running.url}/otroecf/autenticacion/api/autenticacion/semilla`)).status, 404);
  });

  it('gives a one-hour token for the seed signed by a delegated certificate, in universal time', async () => {
    const { status, body } = await validate(signXml(await getSeed(running.url), key));
    assert.equal(status, 200);
    const answer = body as { token: string; expira: string; expedido: string };
    assert.equal(answer.expedido, '2026-11-21T14:00:00Z');
    assert.equal(answer.expira, '2026-11-21T15:00:00Z');
    const payload = JSON.parse(Buffer.from(answer.token.split('.')[1] ?? '', 'base64url').toString()) as Record<
      string,
      unknown
    >;
    assert.equal(payload['iss'], 'DGII.FE');
    assert.equal(payload['name'], 'IDCDO-00199999996');
  });

  it('takes a seed once', async () => {
    const signed = signXml(await getSeed(running.url), key);
    assert.equal((await validate(signed)).status, 200);
    const again = await validate(signed);
    assert.equal(again.status, 400);
    assert.match((again.body as { mensaje: string }).mensaje, /ya fue utilizada|expiró/);
  });

  it('refuses a seed it never issued, and one issued in another environment', async () => {
    const seed = await getSeed(running.url);
    const forged = seed.replace(/<valor>[^<]+<\/valor>/, `<valor>${'A'.repeat(172)}</valor>`);
    assert.equal((await validate(signXml(forged, key))).status, 400);
    assert.equal((await validate(signXml(seed, key), 'certecf')).status, 400);
  });

  it('refuses an expired seed', async () => {
    const seed = await getSeed(running.url);
    clock.advance(3 * 60_000);
    const { status, body } = await validate(signXml(seed, key));
    assert.equal(status, 400);
    assert.match((body as { mensaje: string }).mensaje, /expiró/);
  });

  it('refuses a seed whose signature does not verify', async () => {
    const signed = signXml(await getSeed(running.url), key).replace(/<fecha>(\d)/, '<fecha>1');
    const { status, body } = await validate(signed);
    assert.equal(status, 400);
    assert.match((body as { mensaje: string }).mensaje, /firma/);
  });

  it("refuses a certificate not delegated for any registered taxpayer, in DGII's words (a bare string)", async () => {
    const stranger = createSelfSignedP12({
      commonName: 'OTRA PERSONA',
      serialNumber: 'IDCDO-00100000001',
      notBefore: new Date('2026-01-01'),
      notAfter: new Date('2030-01-01'),
      password: 'x',
    });
    const strangerKey = {
      privateKey: createPrivateKey(stranger.privateKeyPem),
      certificatePem: stranger.certificatePem,
    };
    const { status, body } = await validate(signXml(await getSeed(running.url), strangerKey));
    assert.equal(status, 400);
    assert.equal(body, 'El RNC IDCDO-00100000001 del certificado no está delegado para realizar transaciones.');
    // Delegated now: the same certificate gets a token.
    await running.admin('POST', '/taxpayers', {
      rnc: '130000014',
      name: 'OTRO EMISOR SRL',
      certificates: [certificateFingerprint(stranger.certificatePem)],
    });
    assert.equal((await validate(signXml(await getSeed(running.url), strangerKey))).status, 200);
  });

  it('refuses a body without the xml part, and a chunked body, as DGII does', async () => {
    const form = new FormData();
    form.append('archivo', new Blob(['<x/>']), 'x.xml');
    const missing = await fetch(`${running.url}/testecf/autenticacion/api/autenticacion/validarsemilla`, {
      method: 'POST',
      body: form,
    });
    assert.equal(missing.status, 400);
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(
          new TextEncoder().encode(
            '--b\r\nContent-Disposition: form-data; name="xml"; filename="s.xml"\r\n\r\n<x/>\r\n--b--\r\n',
          ),
        );
        controller.close();
      },
    });
    const chunked = await fetch(`${running.url}/testecf/autenticacion/api/autenticacion/validarsemilla`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    assert.equal(chunked.status, 400);
    assert.deepEqual(await chunked.json(), {
      error: 'Multipart cannot be empty',
      mensaje: 'Multipart cannot be empty',
    });
  });
});

function officialVerdict(xml: string): string[] {
  // The served seed (BOM, CRLF, indentation) is still a valid SemillaModel... once the Signature slot is filled.
  const signed = signXml(xml, testSigningKey());
  return officialSchemasValidate(signed);
}

import { officialSchemas } from '../support/sandbox-kit.js';
function officialSchemasValidate(xml: string): string[] {
  return officialSchemas()
    .validate('Semilla', xml)
    .map((finding) => finding.message);
}
