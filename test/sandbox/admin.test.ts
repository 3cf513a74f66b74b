// The sandbox's control routes: settings (processing delay, maintenance windows in DGII's shape), refusals of bad
// input with a clear message, the token when one is configured, and reset (the counterpart taxpayer stays).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { openDatabase } from '../../src/platform/db/database.js';
import { systemClock } from '../../src/platform/clock.js';
import { counterpartRnc, createSandbox } from '../../src/sandbox/index.js';
import { startSandbox, type RunningSandbox } from '../support/sandbox-kit.js';

describe('sandbox admin routes', () => {
  let running: RunningSandbox;
  before(async () => {
    running = await startSandbox();
  });
  after(() => running.close());

  it('sets the processing delay and maintenance windows, which obtenerventanasmantenimiento then announces', async () => {
    const windows = [
      { ambiente: 'PreCertificacion', horaInicio: '9:00 AM', horaFin: '12:00 PM', dias: ['28-11-2026'] },
    ];
    const saved = await running.admin('PUT', '/settings', { processingDelayMs: 0, maintenanceWindows: windows });
    assert.equal(saved.status, 200);
    assert.deepEqual(saved.body, { processingDelayMs: 0, maintenanceWindows: windows });
    const announced = await fetch(`${running.url}/api/estatusservicios/obtenerventanasmantenimiento`, {
      headers: { authorization: 'Apikey prueba' },
    });
    assert.equal(announced.status, 200);
    assert.match(JSON.stringify(await announced.json()), /28-11-2026/);
  });

  it('refuses settings, taxpayers, ranges and faults that are not well formed, saying which field', async () => {
    const badWindow = await running.admin('PUT', '/settings', {
      maintenanceWindows: [{ ambiente: 'Pruebas', horaInicio: '25:00', horaFin: '1:00 PM', dias: [] }],
    });
    assert.equal(badWindow.status, 400);
    assert.match(JSON.stringify(badWindow.body), /ambiente|horaInicio/);
    const badRnc = await running.admin('POST', '/taxpayers', { rnc: '12', name: 'X' });
    assert.equal(badRnc.status, 400);
    assert.match(JSON.stringify(badRnc.body), /rnc/);
    const unknown = await running.admin('POST', '/taxpayers/130000006/ranges', {
      environment: 'testecf',
      type: '31',
      from: 1,
      to: 10,
    });
    assert.equal(unknown.status, 404);
    await running.admin('POST', '/taxpayers', { rnc: '130000006', name: 'EMISOR SRL' });
    const backwards = await running.admin('POST', '/taxpayers/130000006/ranges', {
      environment: 'testecf',
      type: '31',
      from: 10,
      to: 1,
    });
    assert.equal(backwards.status, 400);
    const badCertificate = await running.admin('POST', '/taxpayers', {
      rnc: '130000006',
      name: 'EMISOR SRL',
      certificates: ['not a certificate'],
    });
    assert.equal(badCertificate.status, 400);
  });

  it('resets everything a test set up, and the counterpart taxpayer is back at once', async () => {
    await running.admin('POST', '/taxpayers', { rnc: '130000014', name: 'OTRO SRL' });
    assert.equal((await running.admin('POST', '/reset')).status, 204);
    assert.equal((await running.admin('GET', '/taxpayers/130000014')).status, 404);
    const counterpart = await running.admin('GET', `/taxpayers/${counterpartRnc}`);
    assert.equal(counterpart.status, 200);
    assert.equal((counterpart.body as { delegatedCertificates: string[] }).delegatedCertificates.length, 1);
    assert.deepEqual(await running.admin('GET', '/settings'), {
      status: 200,
      body: { processingDelayMs: 1000, maintenanceWindows: [] },
    });
  });
});

describe('sandbox admin routes with a token', () => {
  it('are off unless enabled, and demand the token when one is set', async () => {
    const database = await openDatabase({ kind: 'pglite-memory' });
    const off = await createSandbox({
      db: database.db,
      clock: systemClock,
      log: pino({ level: 'silent' }),
      schemas: undefined,
      admin: { enabled: false },
    });
    assert.equal((await off.app.inject({ method: 'GET', url: '/sandbox-admin/settings' })).statusCode, 404);
    await off.close();
    const guarded = await createSandbox({
      db: database.db,
      clock: systemClock,
      log: pino({ level: 'silent' }),
      schemas: undefined,
      admin: { enabled: true, token: 'a-long-admin-token-for-tests' },
    });
    assert.equal((await guarded.app.inject({ method: 'GET', url: '/sandbox-admin/settings' })).statusCode, 401);
    assert.equal(
      (
        await guarded.app.inject({
          method: 'GET',
          url: '/sandbox-admin/settings',
          headers: { authorization: 'Bearer wrong-token-of-same-size!!' },
        })
      ).statusCode,
      401,
    );
    assert.equal(
      (
        await guarded.app.inject({
          method: 'GET',
          url: '/sandbox-admin/settings',
          headers: { authorization: 'Bearer a-long-admin-token-for-tests' },
        })
      ).statusCode,
      200,
    );
    await guarded.close();
    await database.close();
  });
});
