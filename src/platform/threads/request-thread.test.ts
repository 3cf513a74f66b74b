import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { RequestThread } from './request-thread.js';

// A thread that works `ms` on each request (busy, as a parser is), answers `ms`, or an error when asked to fail.
const source = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ id, ms, fail }) => {
  const until = Date.now() + ms;
  while (Date.now() < until);
  parentPort.postMessage(fail ? { id, error: 'asked to fail' } : { id, result: ms });
});`;
const spawn = () => new Worker(source, { eval: true });

describe('a thread that answers requests', () => {
  it('answers in order, and an error reply fails that request alone', async () => {
    const thread = new RequestThread(spawn, { name: 'test' });
    const answers = await Promise.allSettled([
      thread.request({ ms: 5 }),
      thread.request({ ms: 1, fail: true }),
      thread.request({ ms: 2 }),
    ]);
    assert.deepEqual(
      answers.map((answer) => (answer.status === 'fulfilled' ? answer.value : (answer.reason as Error).message)),
      [5, 'asked to fail', 2],
    );
    assert.equal(thread.pending, 0);
    await thread.stop();
  });

  it('past its deadline, stops the thread, fails the late request, and serves the ones queued behind it on a new thread', async () => {
    const thread = new RequestThread(spawn, { name: 'test', deadlineMs: 300 });
    const started = performance.now();
    const [late, queued, after] = await Promise.allSettled([
      thread.request({ ms: 5_000 }),
      thread.request({ ms: 10 }),
      thread.request({ ms: 20 }),
    ]);
    assert.equal(late.status, 'rejected');
    assert.match(late.reason instanceof Error ? late.reason.message : '', /took more than 300 ms/);
    assert.deepEqual(
      [queued, after].map((answer) => (answer.status === 'fulfilled' ? answer.value : 'failed')),
      [10, 20],
    );
    // The 5 s request was cut off, not waited for.
    assert.ok(performance.now() - started < 4_000);
    await thread.stop();
  });

  it('a request to a stopped thread starts a new one', async () => {
    const thread = new RequestThread(spawn, { name: 'test' });
    assert.equal(await thread.request({ ms: 1 }), 1);
    await thread.stop();
    assert.equal(await thread.request({ ms: 2 }), 2);
    await thread.stop();
  });
});
