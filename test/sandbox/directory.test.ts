// DGII's directory of electronic receivers as the sandbox emulates it: the counterpart at this sandbox's own
// emisorreceptor, registered electronic taxpayers with a reception URL, and production's single-object quirk.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { counterpartName, counterpartRnc } from '../../src/sandbox/counterpart/identity.js';
import { authenticate, startSandbox, type RunningSandbox } from '../support/sandbox-kit.js';
import { testSigningKey } from '../support/xmldsig-kit.js';

const receiver = {
  rnc: '130000006',
  name: 'RECEPTOR DE PRUEBA SRL',
  receptionUrl: 'https://receptor.example.do/api',
  approvalUrl: 'https://receptor.example.do/aprobacion',
  authenticationUrl: 'https://receptor.example.do/auth',
};

describe('sandbox: directory (consultadirectorio)', () => {
  let running: RunningSandbox;
  const tokens: Record<string, string> = {};
  const key = testSigningKey();

  before(async () => {
    running = await startSandbox();
    assert.equal(
      (await running.admin('POST', '/taxpayers', { ...receiver, certificates: [key.certificatePem] })).status,
      201,
    );
    // Registered but not listed: no reception URL; not electronic; inactive.
    await running.admin('POST', '/taxpayers', { rnc: '130000014', name: 'SIN URL SRL' });
    await running.admin('POST', '/taxpayers', {
      rnc: '130000022',
      name: 'NO ELECTRONICO SRL',
      electronic: false,
      receptionUrl: 'https://x.example.do',
    });
    await running.admin('POST', '/taxpayers', {
      rnc: '130000031',
      name: 'INACTIVO SRL',
      active: false,
      receptionUrl: 'https://y.example.do',
    });
    for (const environment of ['testecf', 'certecf', 'ecf'])
      tokens[environment] = await authenticate(running.url, key, environment);
  });
  after(() => running.close());

  async function get(environment: string, resource: string, token: string | null = tokens[environment] ?? null) {
    const response = await fetch(`${running.url}/${environment}/consultadirectorio/api/consultas/${resource}`, {
      headers: token === null ? {} : { authorization: `bearer ${token}` },
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
  }

  const counterpart = (environment: string) => {
    const base = `${running.url}/${environment}/emisorreceptor`;
    return { nombre: counterpartName, rnc: counterpartRnc, urlRecepcion: base, urlAceptacion: base, urlOpcional: base };
  };
  const receiverEntry = {
    nombre: receiver.name,
    rnc: receiver.rnc,
    urlRecepcion: receiver.receptionUrl,
    urlAceptacion: receiver.approvalUrl,
    urlOpcional: receiver.authenticationUrl,
  };

  it('lists the counterpart (at this sandbox) and the electronic taxpayers with a reception URL', async () => {
    for (const environment of ['testecf', 'certecf', 'ecf']) {
      const { status, body } = await get(environment, 'listado');
      assert.equal(status, 200);
      assert.deepEqual(body, [counterpart(environment), receiverEntry]);
    }
  });

  it("answers by RNC with an array in TesteCF and CerteCF, and with one object in eCF (DGII's quirk)", async () => {
    assert.deepEqual((await get('testecf', `obtenerdirectorioporrnc?RNC=${receiver.rnc}`)).body, [receiverEntry]);
    assert.deepEqual((await get('certecf', `obtenerdirectorioporrnc?rnc=${receiver.rnc}`)).body, [receiverEntry]);
    assert.deepEqual((await get('ecf', `obtenerdirectorioporrnc?RNC=${receiver.rnc}`)).body, receiverEntry);
    assert.deepEqual((await get('testecf', `obtenerdirectorioporrnc?RNC=${counterpartRnc}`)).body, [
      counterpart('testecf'),
    ]);
  });

  it('answers an RNC not in the directory with an empty list, in every environment', async () => {
    for (const environment of ['testecf', 'ecf']) {
      for (const rnc of ['130000014', '130000022', '130000031', '101010101']) {
        assert.deepEqual(await get(environment, `obtenerdirectorioporrnc?RNC=${rnc}`), { status: 200, body: [] });
      }
    }
  });

  it('refuses a request without RNC the way ASP.NET does', async () => {
    const { status, body } = await get('testecf', 'obtenerdirectorioporrnc');
    assert.equal(status, 400);
    assert.deepEqual((body as { errors: unknown }).errors, { RNC: ['The RNC field is required.'] });
  });

  it('wants a token of the environment', async () => {
    assert.deepEqual(await get('testecf', 'listado', null), { status: 401, body: undefined });
    assert.equal((await get('testecf', `obtenerdirectorioporrnc?RNC=${receiver.rnc}`, 'not-a-token')).status, 401);
    assert.equal((await get('ecf', 'listado', tokens['testecf'] ?? null)).status, 401);
  });
});
