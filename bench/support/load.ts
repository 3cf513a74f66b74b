// A load generator for the benches, run in its own process so it does not share the server's event loop.
//
// Open loop (`rate`): request i is sent at t0 + i/rate whatever the earlier ones are doing, and its latency is counted
// from that scheduled instant (a late send is the server's queue, not the generator's luck). autocannon's
// overallRate is not used for this: it lets each connection send back to back until it has made its share of the
// second and then waits for the next second, so the server sees a burst at full concurrency every second.
// Closed loop (`connections`): each connection sends its next request as soon as the last is answered; this gives
// the saturated rate when every request needs its own body (autocannon sends one body).
//
// argv: the path of a JSON spec (LoadSpec); runLoad does this from a bench. Bodies (and urls) are cycled in order. Prints one JSON line:
// { sent, ok, failed, unanswered, statuses, p50, p99, max, achievedRate } with latencies in milliseconds. Requests
// still unanswered DRAIN_MS after the last send are counted as unanswered, with their age then as a lower bound of
// their latency, so a server that cannot keep up ends the run instead of stretching it.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { percentile } from './statistics.js';

export interface LoadSpec {
  url: string;
  /** When given, the requests go to these in turn instead of all to `url`: a GET of many resources. */
  urls?: string[];
  /** POST by default; a GET sends no body (bodies: ['']). */
  method?: 'GET' | 'POST';
  headers: Record<string, string>;
  bodies: string[];
  /** The status that counts as success. */
  expectStatus: number;
  seconds: number;
  /** Open loop at this many requests per second, or closed loop over this many connections. */
  mode: { rate: number } | { connections: number };
}

export interface LoadResult {
  sent: number;
  ok: number;
  failed: number;
  unanswered: number;
  statuses: Record<string, number>;
  p50: number;
  p99: number;
  max: number;
  achievedRate: number;
}

const DRAIN_MS = 3_000;

async function main(spec: LoadSpec): Promise<LoadResult> {
  const targets = (spec.urls ?? [spec.url]).map((url) => new URL(url));
  const bodies = spec.bodies.map((body) => Buffer.from(body));
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let failed = 0;
  let sent = 0;

  function send(scheduledAt: number): Promise<void> {
    const target = targets[sent % targets.length] as URL;
    const body = bodies[sent++ % bodies.length] as Buffer;
    return new Promise((resolve) => {
      const method = spec.method ?? 'POST';
      const headers = method === 'POST' ? { ...spec.headers, 'content-length': String(body.length) } : spec.headers;
      const req = request(
        { agent, host: target.hostname, port: target.port, path: target.pathname + target.search, method, headers },
        (res) => {
          res.resume();
          res.once('end', () => {
            latencies.push(performance.now() - scheduledAt);
            const status = String(res.statusCode ?? 0);
            statuses[status] = (statuses[status] ?? 0) + 1;
            if (res.statusCode !== spec.expectStatus) failed++;
            resolve();
          });
        },
      );
      req.once('error', () => {
        failed++;
        resolve();
      });
      req.end(method === 'POST' ? body : undefined);
    });
  }

  const start = performance.now();
  const pending = new Set<number>();
  const inFlight: Promise<void>[] = [];
  const track = (scheduledAt: number) => {
    pending.add(scheduledAt);
    return send(scheduledAt).then(() => {
      pending.delete(scheduledAt);
    });
  };
  if ('rate' in spec.mode) {
    const total = Math.round(spec.mode.rate * spec.seconds);
    const interval = 1_000 / spec.mode.rate;
    for (let i = 0; i < total; i++) {
      const scheduledAt = start + i * interval;
      const wait = scheduledAt - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      inFlight.push(track(scheduledAt));
    }
  } else {
    const end = start + spec.seconds * 1_000;
    const connection = async () => {
      while (performance.now() < end) await track(performance.now());
    };
    await Promise.all(Array.from({ length: spec.mode.connections }, connection));
  }
  const sentFor = (performance.now() - start) / 1_000;
  await Promise.race([Promise.all(inFlight), new Promise((resolve) => setTimeout(resolve, DRAIN_MS))]);
  const unanswered = pending.size;
  for (const scheduledAt of pending) latencies.push(performance.now() - scheduledAt);
  agent.destroy();

  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    sent,
    ok: sent - failed - unanswered,
    failed,
    unanswered,
    statuses,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    achievedRate: sent / sentFor,
  };
}

/** Runs `args` with node in a child process and parses the JSON it prints. */
export function childJson<T>(args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve(JSON.parse(out) as T);
      else reject(new Error(`${args.join(' ')} exited with ${String(code)}`));
    });
  });
}

/**
 * Runs `spec` in a child process (this file as its program) and returns what it measured. `started` is called once
 * the spec is written, just before the child starts: a bench that counts its own CPU from there leaves out the cost
 * of serialising and writing thousands of bodies, which is the harness's, not the app's.
 */
export async function runLoad(spec: LoadSpec, started?: () => void): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'ecf-load-'));
  const specPath = join(dir, 'spec.json');
  writeFileSync(specPath, JSON.stringify(spec));
  started?.();
  try {
    return await childJson<LoadResult>(['--import', 'tsx', fileURLToPath(import.meta.url), specPath]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [specPath] = process.argv.slice(2);
  if (specPath === undefined) throw new Error('usage: load.ts <spec.json>');
  process.stdout.write(`${JSON.stringify(await main(JSON.parse(readFileSync(specPath, 'utf8')) as LoadSpec))}\n`);
}
