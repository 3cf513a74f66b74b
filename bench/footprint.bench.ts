// Measured here: `npm start`'s footprint and start time (issue 47), in a fresh copy of the project as the README's
// quick start test makes one (the committed sources, node_modules linked: `npm ci` is not timed).
// - ready after a fresh clone: from spawning `npm start` (no dist/, no data/) to /ready answering with the demo
//   credentials written: the build, the migrations and the demo's provisioning (goal <= 15 s);
// - ready on a restart: the same on the built tree and its data (goal <= 5 s);
// - RSS of the server's node process after the README's quick start has run, and after IDLE_MS more of idling
//   (goal <= 450 MB), with what holds it: the WebAssembly memories (PGlite's database and each thread's libxml2)
//   are the mappings V8 reserves 8 GiB or more for, the rest is split as smaps_rollup splits it.
// Fresh starts in FRESH_ROUNDS rounds, restarts in RESTART_ROUNDS; medians shown with the spread.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../test/support/free-port.js';
import { procStatFields } from '../test/support/proc-stat.js';
import { projectRoot } from '../test/support/project-root.js';
import { committedSources, quickStartBlocks } from '../test/support/readme-quick-start.js';
import { unconfiguredEnv } from '../test/support/unconfigured-env.js';
import { median, ms, spread } from './support/statistics.js';
import { verdict, type BenchRow } from './support/table.js';

const FRESH_ROUNDS = Number(process.env['BENCH_FOOTPRINT_FRESH_ROUNDS'] ?? 2);
const RESTART_ROUNDS = Number(process.env['BENCH_FOOTPRINT_RESTART_ROUNDS'] ?? 3);
const IDLE_MS = 30_000;
const FRESH_GOAL_MS = 15_000;
const RESTART_GOAL_MS = 5_000;
const RSS_GOAL_MB = 450;

interface Footprint {
  rssMb: number;
  wasmMb: number;
  /** Each memory's MB, in the order of their addresses. */
  wasmMemories: string;
  anonMb: number;
  fileMb: number;
  threads: number;
}

const mb = (kb: number) => kb / 1024;

interface Mapping {
  start: number;
  end: number;
  perms: string;
  rssKb: number;
}

function mappingsOf(pid: number): Mapping[] {
  const mappings: Mapping[] = [];
  for (const line of readFileSync(`/proc/${String(pid)}/smaps`, 'utf8').split('\n')) {
    const range = /^([0-9a-f]+)-([0-9a-f]+) (\S+)/.exec(line);
    if (range !== null)
      mappings.push({
        start: parseInt(range[1] ?? '', 16),
        end: parseInt(range[2] ?? '', 16),
        perms: range[3] ?? '',
        rssKb: 0,
      });
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    const last = mappings[mappings.length - 1];
    if (rss !== null && last !== undefined) last.rssKb = Number(rss[1]);
  }
  return mappings;
}

/** A WebAssembly memory: its pages in use, followed by the rest of the 8-10 GiB V8 reserves for it, inaccessible. */
function wasmMemoryKb(mappings: Mapping[]): number[] {
  return mappings.flatMap((mapping, i) => {
    const next = mappings[i + 1];
    const reserved = next !== undefined && next.perms === '---p' && next.start === mapping.end;
    return mapping.perms === 'rw-p' && reserved && next.end - mapping.start >= 8 * 2 ** 30 ? [mapping.rssKb] : [];
  });
}

function footprintOf(pid: number): Footprint {
  const status = readFileSync(`/proc/${String(pid)}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN);
  const wasm = wasmMemoryKb(mappingsOf(pid));
  return {
    rssMb: mb(field('VmRSS')),
    wasmMb: mb(wasm.reduce((sum, kb) => sum + kb, 0)),
    wasmMemories: wasm.map((kb) => mb(kb).toFixed(0)).join('+'),
    anonMb: mb(field('RssAnon')),
    fileMb: mb(field('RssFile')),
    threads: field('Threads'),
  };
}

/** The node process `npm start` ends in (not npm, nor the shell between them), in process group `group`. */
function serverPid(group: number): number {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const command = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      const inGroup = Number(procStatFields(`/proc/${name}/stat`)[2]) === group;
      if (inGroup && command[0]?.endsWith('node') && command[1] === 'scripts/start.mjs') return Number(name);
    } catch {
      // gone between the listing and the read
    }
  }
  throw new Error(`no node process under npm start's group ${String(group)}`);
}

interface Started {
  server: ChildProcess;
  readyMs: number;
  port: number;
}

async function startServer(dir: string): Promise<Started> {
  const port = await freePort();
  const spawnedAt = performance.now();
  const server = spawn('npm', ['start'], { cwd: dir, detached: true, env: unconfiguredEnv({ PORT: String(port) }) });
  let output = '';
  server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  for (;;) {
    const ready = await fetch(`http://127.0.0.1:${String(port)}/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready && existsSync(join(dir, 'data/demo-credentials.json')))
      return { server, readyMs: performance.now() - spawnedAt, port };
    if (server.exitCode !== null) throw new Error(`npm start exited (${String(server.exitCode)}):\n${output}`);
    await sleep(50);
  }
}

async function stopServer(server: ChildProcess): Promise<void> {
  const group = server.pid ?? -1;
  const alive = () => {
    try {
      process.kill(-group, 0);
      return true;
    } catch {
      return false;
    }
  };
  process.kill(-group, 'SIGTERM');
  const deadline = Date.now() + 15_000;
  while (alive() && Date.now() < deadline) await sleep(100);
  if (alive()) process.kill(-group, 'SIGKILL');
}

function runQuickStart(dir: string, port: number): void {
  const script = quickStartBlocks(readFileSync(join(projectRoot, 'README.md'), 'utf8'))
    .map((block) => block.commands.replaceAll('127.0.0.1:3000', `127.0.0.1:${String(port)}`))
    .join('\n');
  const run = spawnSync('bash', ['-eu', '-c', script], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  if (run.status !== 0) throw new Error(`the quick start failed (${String(run.status)}):\n${run.stdout}${run.stderr}`);
}

const megabytes = (values: number[]) => {
  const { low, high } = spread(values);
  return `${median(values).toFixed(0)} MB (${low.toFixed(0)}-${high.toFixed(0)})`;
};
const seconds = (values: number[]) => {
  const { low, high } = spread(values);
  return `${ms(median(values))} (${ms(low)}-${ms(high)})`;
};
const breakdown = (samples: Footprint[]) =>
  `wasm memories ${megabytes(samples.map((s) => s.wasmMb))} [${samples.map((s) => s.wasmMemories).join(' / ')}], anon ${megabytes(samples.map((s) => s.anonMb))}, ` +
  `file ${megabytes(samples.map((s) => s.fileMb))}, threads ${samples.map((s) => s.threads).join('/')}`;

export async function footprintBench(): Promise<BenchRow[]> {
  const fresh: number[] = [];
  const restarts: number[] = [];
  const afterQuickStart: Footprint[] = [];
  const idle: Footprint[] = [];
  for (let round = 0; round < FRESH_ROUNDS; round++) {
    const dir = mkdtempSync(join(tmpdir(), 'ecf-footprint-'));
    try {
      for (const path of committedSources) cpSync(join(projectRoot, path), join(dir, path), { recursive: true });
      symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));
      const first = await startServer(dir);
      fresh.push(first.readyMs);
      try {
        runQuickStart(dir, first.port);
        const pid = serverPid(first.server.pid ?? -1);
        afterQuickStart.push(footprintOf(pid));
        await sleep(IDLE_MS);
        idle.push(footprintOf(pid));
      } finally {
        await stopServer(first.server);
      }
      if (round === 0) {
        for (let restart = 0; restart < RESTART_ROUNDS; restart++) {
          const again = await startServer(dir);
          restarts.push(again.readyMs);
          await stopServer(again.server);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const rssAfter = afterQuickStart.map((s) => s.rssMb);
  return [
    {
      benchmark: 'npm start, fresh clone: ready',
      result: seconds(fresh),
      note: `${verdict(median(fresh) <= FRESH_GOAL_MS)} (<= ${ms(FRESH_GOAL_MS)}); build, migrations, demo; ${String(FRESH_ROUNDS)} rounds`,
    },
    {
      benchmark: 'npm start, restart: ready',
      result: seconds(restarts),
      note: `${verdict(median(restarts) <= RESTART_GOAL_MS)} (<= ${ms(RESTART_GOAL_MS)}); ${String(RESTART_ROUNDS)} rounds`,
    },
    {
      benchmark: 'npm start RSS after the quick start',
      result: megabytes(rssAfter),
      note: `${verdict(median(rssAfter) <= RSS_GOAL_MB)} (<= ${String(RSS_GOAL_MB)} MB); ${breakdown(afterQuickStart)}`,
    },
    {
      benchmark: `npm start RSS after ${String(IDLE_MS / 1000)} s idle`,
      result: megabytes(idle.map((s) => s.rssMb)),
      note: breakdown(idle),
    },
  ];
}
