// Fault injection as a DGII client sees it: each mode, a count, a probability, and the arrivals log proving how
// many requests reached a receiving service even when the sandbox failed them.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { startSandbox, xmlForm, type RunningSandbox } from '../support/sandbox-kit.js';

describe('sandbox: fault injection', () => {
  let running: RunningSandbox;
  before(async () => {
    running = await startSandbox();
  });
  after(() => running.close());
  beforeEach(async () => {
    assert.equal((await running.admin('DELETE', '/faults')).status, 204);
  });

  const seedUrl = () => `${running.url}/testecf/autenticacion/api/autenticacion/semilla`;
  const inject = async (fault: Record<string, unknown>) => {
    const created = await running.admin('POST', '/faults', fault);
    assert.equal(created.status, 201, JSON.stringify(created.body));
  };

  it('answers 500 and 503 the way a failing IIS does, for as many requests as asked, then recovers', async () => {
    await inject({ service: 'autenticacion', mode: 'http500', count: 2 });
    const first = await fetch(seedUrl());
    assert.equal(first.status, 500);
    assert.equal(await first.text(), 'Internal Server Error');
    assert.equal((await fetch(seedUrl())).status, 500);
    assert.equal((await fetch(seedUrl())).status, 200);
    await inject({ service: 'autenticacion', mode: 'http503', count: 1 });
    assert.equal((await fetch(seedUrl())).status, 503);
    assert.equal((await fetch(seedUrl())).status, 200);
  });

  it('resets the connection', async () => {
    await inject({ service: 'autenticacion', mode: 'reset', count: 1 });
    await assert.rejects(fetch(seedUrl()), TypeError);
    assert.equal((await fetch(seedUrl())).status, 200);
  });

  it('holds the request without an answer (timeout) until the client gives up', async () => {
    await inject({ service: 'autenticacion', mode: 'timeout', count: 1, delayMs: 5_000 });
    const started = Date.now();
    await assert.rejects(
      fetch(seedUrl(), { signal: AbortSignal.timeout(300) }),
      (error: Error) => error.name === 'TimeoutError',
    );
    assert.ok(Date.now() - started < 2_000);
  });

  it('answers slowly but correctly', async () => {
    await inject({ service: 'autenticacion', mode: 'slow', count: 1, delayMs: 400 });
    const started = Date.now();
    const response = await fetch(seedUrl());
    assert.equal(response.status, 200);
    assert.ok(Date.now() - started >= 380, 'answered too fast');
  });

  it("answers maintenance in DGII's shape while it lasts", async () => {
    await inject({ service: 'autenticacion', mode: 'maintenance' });
    const response = await fetch(seedUrl());
    assert.equal(response.status, 503);
    assert.match(((await response.json()) as { mensaje: string }).mensaje, /mantenimiento/);
    await running.admin('DELETE', '/faults');
    assert.equal((await fetch(seedUrl())).status, 200);
  });

  it('hits a share of requests with a probability', async () => {
    await inject({ service: 'autenticacion', mode: 'http503', probability: 0.5 });
    const statuses = await Promise.all(
      Array.from({ length: 40 }, () => fetch(seedUrl()).then((response) => response.status)),
    );
    const failed = statuses.filter((status) => status === 503).length;
    assert.ok(failed > 5 && failed < 35, `${String(failed)} of 40 failed`);
    assert.ok(statuses.every((status) => status === 200 || status === 503));
  });

  it('writes a failed request to a receiving service in the arrivals log', async () => {
    await inject({ service: 'anulacionrangos', mode: 'http500', count: 1 });
    const response = await fetch(`${running.url}/testecf/anulacionrangos/api/operaciones/anularrango`, {
      method: 'POST',
      body: xmlForm('<ANECF/>', '130000006ANECF.xml'),
    });
    assert.equal(response.status, 500);
    const arrivals = await running.admin('GET', '/arrivals?service=anulacionrangos');
    const outcomes = (arrivals.body as { outcome: string }[]).map((arrival) => arrival.outcome);
    assert.deepEqual(outcomes, ['fault:http500']);
  });

  it('refuses a fault for an unknown service or mode', async () => {
    assert.equal((await running.admin('POST', '/faults', { service: 'recepcionx', mode: 'http500' })).status, 400);
    assert.equal((await running.admin('POST', '/faults', { service: 'recepcion', mode: 'explode' })).status, 400);
  });
});
