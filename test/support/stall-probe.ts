// Builds a hostile body, sends it in requests one at a time and, while each is answered, calls /health on another
// connection again and again, timing each call. A process of its own, so that what is timed is the server, not a
// test process building and sending 5 MB bodies and collecting their garbage.
// argv[2]: JSON {base, body: {xml: shape name} | {json: 'objects'}, requests: [{name, method, path, headers}]};
// prints one JSON line per request: {name, bytes, status, contentType, body (its first 2,000 characters),
// slowestMs, healthCalls}.
import { admittedXmlShapes, manyJsonObjects, refusedXmlShapes } from './hostile-xml.js';

interface Spec {
  base: string;
  body: { xml: string } | { json: 'objects' };
  requests: { name: string; method: string; path: string; headers: Record<string, string> }[];
}

const { base, body: which, requests } = JSON.parse(process.argv[2] ?? '{}') as Spec;
const make = 'xml' in which ? (refusedXmlShapes[which.xml] ?? admittedXmlShapes[which.xml]) : manyJsonObjects;
if (make === undefined) throw new Error(`no shape ${JSON.stringify(which)}`);
const body = Buffer.from(make());

for (const { name, method, path, headers } of requests) {
  const state = { answered: false };
  const pending = fetch(`${base}${path}`, { method, headers, body }).then(async (response) => {
    const text = await response.text();
    state.answered = true;
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      body: text.slice(0, 2_000),
    };
  });
  let slowestMs = 0;
  let healthCalls = 0;
  do {
    const started = performance.now();
    const health = await fetch(`${base}/health`);
    await health.arrayBuffer();
    slowestMs = Math.max(slowestMs, performance.now() - started);
    healthCalls++;
    if (health.status !== 200) throw new Error(`/health answered ${String(health.status)}`);
  } while (!state.answered);
  process.stdout.write(
    `${JSON.stringify({ name, bytes: body.byteLength, ...(await pending), slowestMs, healthCalls })}\n`,
  );
}
