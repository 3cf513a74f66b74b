// Runs every *.test.ts under src/ and test/, each file in a Node process of its own (node:test), two at a time,
// and prints how long each file took. Its own scheduler rather than `node --test` because Node 20's runner gives no
// per-file time, runs the files in name order (a long file drawn last keeps one core idle while it finishes) and
// interleaves nothing usefully: here each file's output is printed whole when it ends, the longest known files
// start first, and a file that hangs is stopped instead of holding CI to its limit.
//
//   node scripts/test.mjs [paths…]      the files below those paths (default: src and test)
//   node scripts/test.mjs --unit        the fast tier: the files listed as unit in scripts/test-tiers.mjs
//   node scripts/test.mjs --times       and print every file's time, not only the slowest
//
// TEST_CONCURRENCY sets how many files run at once (default 2: this project's CI machine has two cores).
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
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { clearTimeout, setTimeout } from 'node:timers';
import { buildTests } from './test-build.mjs';
import { isUnitTest } from './test-tiers.mjs';

const fileTimeoutMs = 15 * 60_000;
const timesCache = 'node_modules/.cache/ecf-test-times.json';

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

// Longest first, by the last run's times on this machine; a file never timed goes by its size.
const known = existsSync(timesCache) ? JSON.parse(readFileSync(timesCache, 'utf8')) : {};
const expected = (file) => known[file] ?? statSync(file).size / 10;
const queue = [...files].sort((a, b) => expected(b) - expected(a));

const countsDir = mkdtempSync(join(tmpdir(), 'ecf-test-counts-'));
const reporter = new URL('./test-counts-reporter.mjs', import.meta.url).pathname;
const concurrency = Number(process.env.TEST_CONCURRENCY ?? 2);
const results = [];
const started = performance.now();
const compiled = process.env.TEST_FROM_SOURCES === '1' ? undefined : await buildTests(process.cwd());
if (compiled !== undefined) console.log(`compiled in ${((performance.now() - started) / 1000).toFixed(1)} s`);
process.on('exit', () => compiled?.clean());

function runFile(file, index) {
  const countsFile = join(countsDir, `${index}.json`);
  const child = spawn(
    process.execPath,
    [
      ...(compiled === undefined ? ['--import', 'tsx'] : []),
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      `--test-reporter=${reporter}`,
      `--test-reporter-destination=${countsFile}`,
      compiled === undefined ? file : join(compiled.dir, file.replace(/\.ts$/, '.js')),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output = [];
  child.stdout.on('data', (chunk) => output.push(chunk));
  child.stderr.on('data', (chunk) => output.push(chunk));
  const fileStarted = performance.now();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, fileTimeoutMs);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const seconds = (performance.now() - fileStarted) / 1000;
      const counts = existsSync(countsFile) ? JSON.parse(readFileSync(countsFile, 'utf8')) : undefined;
      const failed = code !== 0 || !counts || counts.fail > 0;
      const why = timedOut ? ` (stopped after ${fileTimeoutMs / 60_000} min)` : signal ? ` (${signal})` : '';
      process.stdout.write(`\n▶ ${file} ${failed ? 'FAILED' : 'ok'} in ${seconds.toFixed(1)} s${why}\n`);
      process.stdout.write(Buffer.concat(output));
      results.push({ file, seconds, failed, counts: counts ?? { tests: 0, pass: 0, fail: 0, skip: 0, todo: 0 } });
      resolve();
    });
  });
}

let next = 0;
async function worker() {
  while (next < queue.length) {
    const index = next++;
    await runFile(queue[index], index);
  }
}
await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
rmSync(countsDir, { recursive: true, force: true });

const wall = (performance.now() - started) / 1000;
const sum = (key) => results.reduce((total, result) => total + result.counts[key], 0);
const byTime = [...results].sort((a, b) => b.seconds - a.seconds);
const shown = allTimes ? byTime : byTime.slice(0, 20);
console.log(`\n${allTimes ? 'Every file' : 'The 20 slowest files'}, in seconds:\n`);
console.log('| seconds | tests | file |\n|---:|---:|---|');
for (const result of shown) console.log(`| ${result.seconds.toFixed(1)} | ${result.counts.tests} | ${result.file} |`);
const fileSeconds = results.reduce((total, result) => total + result.seconds, 0);
console.log(
  `\n${results.length} files, ${sum('tests')} tests: ${sum('pass')} passed, ${sum('fail')} failed, ` +
    `${sum('skip')} skipped, ${sum('todo')} todo; ${wall.toFixed(0)} s (${fileSeconds.toFixed(0)} s of files, ` +
    `${concurrency} at a time)`,
);

// A narrowed run updates the times of its own files and keeps the others'.
mkdirSync('node_modules/.cache', { recursive: true });
writeFileSync(
  timesCache,
  JSON.stringify({ ...known, ...Object.fromEntries(results.map((result) => [result.file, result.seconds])) }),
);

const failed = results.filter((result) => result.failed);
if (failed.length > 0) {
  console.log(`\nFailed: ${failed.map((result) => result.file).join(', ')}`);
  process.exit(1);
}
