// SEND_CONCURRENCY bounds the documents one worker has at DGII's reception at once. DGII answers each reception
// slowly (a sandbox fault holding each answer), so with at most 2 in flight the receptions finish in pairs: of any
// three in the order they finished, one started only after the first had finished, so the third finished at least
// one answer time after the first. All at once, they would finish together.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ecfDocuments } from './support/ecf-documents.js';
import { startSendingWorld, type SendingWorld } from './support/sending-kit.js';

const answerMs = 400;
const documents = 6;

describe('SEND_CONCURRENCY=2', { timeout: 120_000 }, () => {
  let world: SendingWorld;

  before(async () => {
    world = await startSendingWorld({ env: { SEND_CONCURRENCY: '2' } });
  });
  after(() => world.close());

  it('keeps at most 2 documents at DGII reception at once', async () => {
    assert.equal(world.app.config.sending.concurrency, 2);
    const fault = await world.sandbox.admin('POST', '/faults', {
      service: 'recepcion',
      mode: 'slow',
      delayMs: answerMs,
      probability: 1,
    });
    assert.equal(fault.status, 201, JSON.stringify(fault.body));
    const created = [];
    for (let i = 0; i < documents; i++) created.push(await world.create(ecfDocuments['31']));
    await Promise.all(created.map((document) => world.send(document.id)));
    for (const document of created) assert.equal((await world.untilSettled(document.id)).status, 'accepted');

    const arrivals = (await world.sandbox.admin('GET', '/arrivals?service=recepcion')).body as {
      encf: string | null;
      arrived_at: string;
    }[];
    const finished = arrivals.map((arrival) => new Date(arrival.arrived_at).getTime()).sort((a, b) => a - b);
    assert.equal(finished.length, documents);
    const gaps = finished.slice(2).map((at, i) => at - (finished[i] ?? 0));
    // A little under the answer time: the sandbox's clock reads the time after its own work, not to the millisecond.
    for (const gap of gaps)
      assert.ok(gap >= answerMs * 0.9, `receptions finished closer than one answer apart: ${gaps.join(', ')} ms`);
  });
});
