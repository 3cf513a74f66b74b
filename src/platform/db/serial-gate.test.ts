import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { SerialGate } from './serial-gate.js';
import { isDatabaseUnavailable } from './unavailable.js';

describe('the embedded database gate', () => {
  it('gives up on a turn that does not come in time, and passes it on to those behind', async () => {
    const gate = new SerialGate();
    const order: string[] = [];
    const releaseHolder = await gate.acquire();
    const timedOut = () => new Error('timeout exceeded when trying to connect to the embedded database');
    const late = gate.acquire(30, timedOut);
    const patient = gate.acquire().then((release) => {
      order.push('patient');
      release();
    });
    await assert.rejects(late, (error: unknown) => isDatabaseUnavailable(error));
    order.push('late gave up');
    await sleep(20);
    assert.deepEqual(order, ['late gave up'], 'the holder still holds the gate');
    releaseHolder();
    await patient;
    assert.deepEqual(order, ['late gave up', 'patient']);
    const next = await gate.acquire(30, timedOut);
    next();
  });
});
