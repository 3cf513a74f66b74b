// Sends costly requests one at a time and, while each is answered, calls /health on another connection again and
// again, timing each call. A process of its own (plain JavaScript, so it starts at once), so that what is timed is
// the server, not the test process sending 5 MB bodies and collecting their garbage.
// argv[2]: JSON {base, requests: [{name, method, path, headers, bodyFile}]}; prints one JSON line per request:
// {name, status, contentType, body (its first 2,000 characters), slowestMs, healthCalls}.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/* global fetch -- Node 20's */

const { base, requests } = JSON.parse(process.argv[2]);
for (const { name, method, path, headers, bodyFile } of requests) {
  const body = readFileSync(bodyFile);
  let answered = false;
  const pending = fetch(`${base}${path}`, { method, headers, body }).then(async (response) => {
    const text = await response.text();
    answered = true;
    return { status: response.status, contentType: response.headers.get('content-type') ?? '', body: text.slice(0, 2_000) };
  });
  let slowestMs = 0;
  let healthCalls = 0;
  do {
    const started = performance.now();
    const health = await fetch(`${base}/health`);
    await health.arrayBuffer();
    slowestMs = Math.max(slowestMs, performance.now() - started);
    healthCalls++;
    if (health.status !== 200) throw new Error(`/health answered ${health.status}`);
  } while (!answered);
  process.stdout.write(`${JSON.stringify({ name, ...(await pending), slowestMs, healthCalls })}\n`);
}
