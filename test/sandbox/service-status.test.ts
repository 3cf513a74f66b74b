// DGII's status service as the sandbox emulates it: an API key, each service "Disponible" or "No Disponible"
// (a maintenance fault on it, or a running maintenance window of its environment), and the announced windows.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { writeSetting } from '../../src/sandbox/state/settings.js';
import { fixedClock, startSandbox, type RunningSandbox } from '../support/sandbox-kit.js';

const services = [
  'Autenticación',
  'Recepción',
  'Consulta Resultado',
  'Consulta Estado',
  'Consulta Directorio',
  'Consulta TrackIds',
  'Aprobación Comercial',
  'Anulación Rangos',
  'Recepción FC',
];
const apiKey = { authorization: 'Apikey 1234567-ABCDEFG-HIJK-LMNOPQRSTU' };

const windows = [
  { ambiente: 'PreCertificacion', horaInicio: '9:00 AM', horaFin: '12:00 PM', dias: ['21-11-2026', '28-11-2026'] },
  { ambiente: 'Produccion', horaInicio: '1:00 PM', horaFin: '4:00 PM', dias: ['22-11-2026'] },
];

describe('sandbox: service status (estatusservicios)', () => {
  let running: RunningSandbox;
  // 08:00 in Santo Domingo (GMT-4).
  const clock = fixedClock(new Date('2026-11-21T12:00:00Z'));

  before(async () => {
    running = await startSandbox({ clock });
  });
  beforeEach(async () => {
    await running.admin('DELETE', '/faults');
    await writeSetting(running.sandbox.context.db, 'maintenance_windows', []);
    clock.set(new Date('2026-11-21T12:00:00Z'));
  });
  after(() => running.close());

  async function get(resource: string, headers: Record<string, string> = apiKey) {
    const response = await fetch(`${running.url}/api/estatusservicios/${resource}`, { headers });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
  }

  const allAvailable = (ambiente: string) =>
    services.map((servicio) => ({ servicio, estatus: 'Disponible', ambiente }));

  it('lists every service of pre-certification and production as "Disponible", with DGII\'s names', async () => {
    const { status, body } = await get('obtenerestatus');
    assert.equal(status, 200);
    assert.deepEqual(body, [...allAvailable('PreCertificacion'), ...allAvailable('Produccion')]);
  });

  it('says "No Disponible" for a service under a maintenance fault, in every environment', async () => {
    await running.admin('POST', '/faults', { service: 'recepcion', mode: 'maintenance' });
    const body = (await get('obtenerestatus')).body as { servicio: string; estatus: string; ambiente: string }[];
    assert.deepEqual(
      body.filter((entry) => entry.estatus === 'No Disponible'),
      [
        { servicio: 'Recepción', estatus: 'No Disponible', ambiente: 'PreCertificacion' },
        { servicio: 'Recepción', estatus: 'No Disponible', ambiente: 'Produccion' },
      ],
    );
    for (const ambiente of ['1', '2', '3'])
      assert.deepEqual((await get(`verificarestado?ambiente=${ambiente}`)).body, { estado: 'No Disponible' });
  });

  it('verifies an environment: 1 PreCertificación, 2 Producción, 3 Certificación', async () => {
    for (const ambiente of ['1', '2', '3'])
      assert.deepEqual(await get(`verificarestado?ambiente=${ambiente}`), {
        status: 200,
        body: { estado: 'Disponible' },
      });
    const bad = await get('verificarestado?ambiente=4');
    assert.equal(bad.status, 400);
    assert.equal((await get('verificarestado')).status, 400);
    assert.deepEqual(await get('verificarEstado?Ambiente=1'), { status: 200, body: { estado: 'Disponible' } });
  });

  it("returns the maintenance windows as stored (none by default), in DGII's shape", async () => {
    assert.deepEqual((await get('obtenerventanasmantenimiento')).body, { ventanaMantenimientos: [] });
    await writeSetting(running.sandbox.context.db, 'maintenance_windows', [
      ...windows,
      { ambiente: 'Marte', horaInicio: '9:00 AM', horaFin: '10:00 AM', dias: [] },
    ]);
    assert.deepEqual((await get('obtenerventanasmantenimiento')).body, { ventanaMantenimientos: windows });
  });

  it('says "No Disponible" for an environment while one of its windows runs (GMT-4)', async () => {
    await writeSetting(running.sandbox.context.db, 'maintenance_windows', windows);
    assert.deepEqual((await get('verificarestado?ambiente=1')).body, { estado: 'Disponible' });
    clock.set(new Date('2026-11-21T13:00:00Z')); // 09:00 local: the window opens
    assert.deepEqual((await get('verificarestado?ambiente=1')).body, { estado: 'No Disponible' });
    assert.deepEqual((await get('verificarestado?ambiente=2')).body, { estado: 'Disponible' });
    const body = (await get('obtenerestatus')).body as { estatus: string; ambiente: string }[];
    assert.ok(
      body.filter((entry) => entry.ambiente === 'PreCertificacion').every((entry) => entry.estatus === 'No Disponible'),
    );
    assert.ok(body.filter((entry) => entry.ambiente === 'Produccion').every((entry) => entry.estatus === 'Disponible'));
    clock.set(new Date('2026-11-21T16:00:00Z')); // 12:00 local: closed again
    assert.deepEqual((await get('verificarestado?ambiente=1')).body, { estado: 'Disponible' });
  });

  it('wants an API key', async () => {
    for (const resource of ['obtenerestatus', 'obtenerventanasmantenimiento', 'verificarestado?ambiente=1']) {
      assert.deepEqual(await get(resource, {}), { status: 401, body: undefined });
      assert.equal((await get(resource, { authorization: 'Bearer abc' })).status, 401);
      assert.equal((await get(resource, { authorization: 'Apikey ' })).status, 401);
    }
  });

  it('has no environment segment', async () => {
    assert.equal(
      (await fetch(`${running.url}/testecf/api/estatusservicios/obtenerestatus`, { headers: apiKey })).status,
      404,
    );
  });
});
