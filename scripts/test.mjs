// Runs every *.test.ts under src/ and test/, each file in a Node process of its own (node:test), as many at a time
// as keep the cores busy, and prints how long each file took. Its own scheduler rather than `node --test` because
// Node 20's runner gives no per-file time, runs the files in name order (a long file drawn last keeps one core idle
// while it finishes) and knows nothing of how much of a file's time is waiting: here each file's output is printed
// whole when it ends, the longest known files start first, files that mostly wait run beside others, and a file
// that hangs is stopped instead of holding CI to its limit.
//
//   node scripts/test.mjs [paths…]      the files below those paths (default: src and test)
//   node scripts/test.mjs --unit        the fast tier: the files listed as unit in scripts/test-tiers.mjs
//   node scripts/test.mjs --times       and print every file's time, not only the slowest
//   node scripts/test.mjs --lint        and the checks of `npm run lint` beside the files (`npm test`)
//   node scripts/test.mjs --record-times   and write the times to scripts/test-times.json, the order a clean
//                                       clone starts with
//
// TEST_CONCURRENCY sets how many files run at once (by default, as many as the cores can keep busy: see below).
// The files run from JavaScript compiled at the start of the run (scripts/test-build.mjs: tsx's loader costs each
// process seconds); TEST_FROM_SOURCES=1 runs them through tsx instead, for stack traces at the sources' lines.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { clearTimeout, setTimeout } from 'node:timers';
import { buildTests } from './test-build.mjs';
import { lintSteps } from './lint-steps.mjs';
import { isUnitTest } from './test-tiers.mjs';

const fileTimeoutMs = 15 * 60_000;
const ticksPerSecond = 100; // Linux's USER_HZ, the unit of /proc/self/stat's times

/** CPU seconds of this runner's children that have ended and been waited for (utime and stime, both included). */
function childrenCpuSeconds() {
  if (process.platform !== 'linux') return 0;
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[13]) + Number(fields[14])) / ticksPerSecond; // cutime and cstime: fields 16 and 17
}
const timesCache = 'node_modules/.cache/ecf-test-times.json';
const recordedTimes = 'scripts/test-times.json';

function findTests(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (name.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

const args = process.argv.slice(2);
const unitOnly = args.includes('--unit');
const allTimes = args.includes('--times');
const withLint = args.includes('--lint');
const recordTimes = args.includes('--record-times');
const roots = args.filter((arg) => !arg.startsWith('--'));
let files = (roots.length > 0 ? roots : ['src', 'test'])
  .flatMap((root) => (statSync(root).isDirectory() ? findTests(root) : [root]))
  .map((file) => relative('.', file))
  .sort();
if (unitOnly) files = files.filter(isUnitTest);
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

// Longest first, by the last run's times on this machine, else by the times recorded in the project (a clean clone
// has no run of its own: a long file drawn last keeps a core idle while it finishes); a file never timed goes by its
// size. A time is `{ seconds, cpu }`: wall and CPU seconds.
const readTimes = (path) => (existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {});
const known = readTimes(timesCache);
const recorded = readTimes(recordedTimes);
const timeOf = (name) => {
  const time = known[name] ?? recorded[name];
  return typeof time === 'number' ? { seconds: time, cpu: time } : time; // a number: a time kept before CPU was
};
const expected = (name) => timeOf(name)?.seconds ?? (existsSync(name) ? statSync(name).size / 10 : 60);
/** The share of a core a job keeps busy: most integration files spend much of their time waiting on timers and I/O. */
const cpuShare = (name) => {
  const time = timeOf(name);
  return time === undefined || time.seconds < 1 ? 1 : Math.min(1, time.cpu / time.seconds);
};
const nameOf = (item) => (typeof item === 'string' ? item : item.name);
const queue = [...files, ...(withLint ? lintSteps : [])].sort((a, b) => expected(nameOf(b)) - expected(nameOf(a)));

const countsDir = mkdtempSync(join(tmpdir(), 'ecf-test-counts-'));
const reporter = new URL('./test-counts-reporter.mjs', import.meta.url).pathname;
// As many jobs at once as keep the cores busy and no more: a job starts while the CPU shares of those running, its own
// included, fit in the cores (one always runs), up to twice as many jobs as cores. TEST_CONCURRENCY sets a fixed
// number instead.
const cores = availableParallelism();
const fixedConcurrency = process.env.TEST_CONCURRENCY === undefined ? undefined : Number(process.env.TEST_CONCURRENCY);
const maxJobs = fixedConcurrency ?? 2 * cores;
const results = [];
const started = performance.now();
const compiled = process.env.TEST_FROM_SOURCES === '1' ? undefined : await buildTests(process.cwd());
if (compiled !== undefined) console.log(`compiled in ${((performance.now() - started) / 1000).toFixed(1)} s`);
process.on('exit', () => compiled?.clean());

/** A test file's run: node:test in a process of its own, its counts written by our reporter. */
function testJob(file, index) {
  const countsFile = join(countsDir, `${index}.json`);
  const args = [
    ...(compiled === undefined ? ['--import', 'tsx'] : []),
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${reporter}`,
    `--test-reporter-destination=${countsFile}`,
    compiled === undefined ? file : join(compiled.dir, file.replace(/\.ts$/, '.js')),
  ];
  return {
    name: file,
    command: process.execPath,
    args,
    counts: () => (existsSync(countsFile) ? JSON.parse(readFileSync(countsFile, 'utf8')) : undefined),
  };
}

const noTests = { tests: 0, pass: 0, fail: 0, skip: 0, todo: 0 };

function run(job) {
  const child = spawn(job.command, job.args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  child.stdout.on('data', (chunk) => output.push(chunk));
  child.stderr.on('data', (chunk) => output.push(chunk));
  const jobStarted = performance.now();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, fileTimeoutMs);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const seconds = (performance.now() - jobStarted) / 1000;
      // Children end one at a time, so the growth since the last one ended is this job's CPU.
      const cpuNow = childrenCpuSeconds();
      const cpu = cpuNow - cpuSeen;
      cpuSeen = cpuNow;
      // A test file passes when its process ends well and its reporter counted no failure; a lint step, on its code.
      const counts = job.counts === undefined ? noTests : job.counts();
      const failed = code !== 0 || !counts || counts.fail > 0;
      const why = timedOut ? ` (stopped after ${fileTimeoutMs / 60_000} min)` : signal ? ` (${signal})` : '';
      process.stdout.write(
        `\n▶ ${job.name} ${failed ? 'FAILED' : 'ok'} in ${seconds.toFixed(1)} s (${cpu.toFixed(1)} s CPU)${why}\n`,
      );
      process.stdout.write(Buffer.concat(output));
      results.push({ file: job.name, seconds, cpu, failed, counts: counts ?? noTests });
      resolve();
    });
  });
}

let cpuSeen = childrenCpuSeconds();
const running = new Map(); // job index → its CPU share
let next = 0;
await new Promise((allDone) => {
  // In order: a file that waits is not overtaken by shorter ones (the longest must start early, or they end last).
  const nextFits = () =>
    running.size === 0 ||
    (running.size < maxJobs &&
      (fixedConcurrency !== undefined ||
        [...running.values()].reduce((total, share) => total + share, 0) + cpuShare(nameOf(queue[next])) <= cores));
  const startWhatFits = () => {
    while (next < queue.length && nextFits()) {
      const index = next++;
      const item = queue[index];
      running.set(index, cpuShare(nameOf(item)));
      void run(typeof item === 'string' ? testJob(item, index) : item).then(() => {
        running.delete(index);
        if (next === queue.length && running.size === 0) allDone();
        else startWhatFits();
      });
    }
  };
  startWhatFits();
});
rmSync(countsDir, { recursive: true, force: true });

const wall = (performance.now() - started) / 1000;
const sum = (key) => results.reduce((total, result) => total + result.counts[key], 0);
const byTime = [...results].sort((a, b) => b.seconds - a.seconds);
const shown = allTimes ? byTime : byTime.slice(0, 20);
console.log(`\n${allTimes ? 'Every file' : 'The 20 slowest files'}, in seconds:\n`);
console.log('| seconds | CPU s | tests | file |\n|---:|---:|---:|---|');
for (const result of shown) {
  console.log(`| ${result.seconds.toFixed(1)} | ${result.cpu.toFixed(1)} | ${result.counts.tests} | ${result.file} |`);
}
const fileSeconds = results.reduce((total, result) => total + result.seconds, 0);
const cpuSeconds = results.reduce((total, result) => total + result.cpu, 0);
console.log(
  `\n${results.length} files, ${sum('tests')} tests: ${sum('pass')} passed, ${sum('fail')} failed, ` +
    `${sum('skip')} skipped, ${sum('todo')} todo; ${wall.toFixed(0)} s (${fileSeconds.toFixed(0)} s of files, ` +
    `${fixedConcurrency === undefined ? `up to ${maxJobs} at a time as the cores allow` : `${fixedConcurrency} at a time`}; ` +
    `${cpuSeconds.toFixed(0)} s CPU)`,
);

// A narrowed run updates the times of its own files and keeps the others'.
const tenths = (value) => Math.round(value * 10) / 10;
const measured = Object.fromEntries(
  results.map((result) => [result.file, { seconds: tenths(result.seconds), cpu: tenths(result.cpu) }]),
);
mkdirSync('node_modules/.cache', { recursive: true });
writeFileSync(timesCache, JSON.stringify({ ...known, ...measured }));
if (recordTimes) {
  const sorted = Object.fromEntries(
    Object.entries({ ...recorded, ...measured }).sort(([a], [b]) => a.localeCompare(b)),
  );
  writeFileSync(recordedTimes, `${JSON.stringify(sorted, null, 2)}\n`);
}

const failed = results.filter((result) => result.failed);
if (failed.length > 0) {
  console.log(`\nFailed: ${failed.map((result) => result.file).join(', ')}`);
  process.exit(1);
}
