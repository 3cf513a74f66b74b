// An open-loop load generator for the fixed-rate measure of documents.bench.ts, run in its own process so it does
// not share the server's event loop. autocannon's overallRate is not used for this: it lets each connection send
// back to back until it has made its share of the second and then waits for the next second, so the server sees a
// burst at full concurrency every second instead of a steady rate. Here request i is sent at t0 + i/rate whatever
// the earlier ones are doing, and its latency is counted from that scheduled instant (a late send is the
// server's queue, not the generator's luck).
//
// argv: url, rate (requests/s), seconds, then a JSON object { headers, body }. Prints one JSON line:
// { sent, ok, failed, unanswered, statuses, p50, p99, max, achievedRate } with latencies in milliseconds. Requests
// still unanswered DRAIN_MS after the last send are counted as unanswered, with their age then as a lower bound of
// their latency, so a server that cannot keep up ends the run instead of stretching it.
import { Agent, request } from 'node:http';

interface Spec {
  headers: Record<string, string>;
  body: string;
}

const [url, rateArg, secondsArg, specArg] = process.argv.slice(2);
if (url === undefined || rateArg === undefined || secondsArg === undefined || specArg === undefined) throw new Error('usage: documents-load.ts <url> <rate> <seconds> <spec-json>');
const rate = Number(rateArg);
const total = Math.round(rate * Number(secondsArg));
const spec = JSON.parse(specArg) as Spec;
const target = new URL(url);
const body = Buffer.from(spec.body);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

const latencies: number[] = [];
const statuses: Record<string, number> = {};
let failed = 0;

function send(scheduledAt: number): Promise<void> {
  return new Promise((resolve) => {
    const req = request(
      { agent, host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { ...spec.headers, 'content-type': 'application/json', 'content-length': String(body.length) } },
      (res) => {
        res.resume();
        res.once('end', () => {
          latencies.push(performance.now() - scheduledAt);
          const status = String(res.statusCode ?? 0);
          statuses[status] = (statuses[status] ?? 0) + 1;
          if (res.statusCode !== 201) failed++;
          resolve();
        });
      },
    );
    req.once('error', () => {
      failed++;
      resolve();
    });
    req.end(body);
  });
}

const DRAIN_MS = 3_000;
const interval = 1_000 / rate;
const start = performance.now();
const inFlight: Promise<void>[] = [];
const pending = new Set<number>();
for (let i = 0; i < total; i++) {
  const scheduledAt = start + i * interval;
  const wait = scheduledAt - performance.now();
  if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
  pending.add(scheduledAt);
  inFlight.push(
    send(scheduledAt).then(() => {
      pending.delete(scheduledAt);
    }),
  );
}
const sentFor = (performance.now() - start) / 1_000;
await Promise.race([Promise.all(inFlight), new Promise((resolve) => setTimeout(resolve, DRAIN_MS))]);
const unanswered = pending.size;
for (const scheduledAt of pending) latencies.push(performance.now() - scheduledAt);
agent.destroy();

const sorted = [...latencies].sort((a, b) => a - b);
const percentile = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
process.stdout.write(
  `${JSON.stringify({ sent: total, ok: total - failed - unanswered, failed, unanswered, statuses, p50: percentile(50), p99: percentile(99), max: sorted[sorted.length - 1] ?? Number.NaN, achievedRate: total / sentFor })}\n`,
);
