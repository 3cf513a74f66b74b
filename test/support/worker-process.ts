// An `ecf worker` in a child process, for the tests that kill, restart or measure workers apart from
// the API: it runs this checkout's sources with the environment given, and nothing of this process's that would
// point it elsewhere (database, cache, keys, storage, DGII, timings).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeProgram } from './node-program.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const ecfMain = join(root, 'src/main.ts');

/** The node arguments that run `ecf`: its compiled main.js under the suite's mirror, its sources through tsx otherwise. */
export const ecfProgram: readonly string[] = nodeProgram(ecfMain);

const inherited = Object.fromEntries(
  Object.entries(process.env).filter(
    (entry): entry is [string, string] =>
      entry[1] !== undefined &&
      !/^(DATABASE_URL|REDIS_URL|MASTER_KEY|NODE_ENV|FISCAL_ENV|OPS_TOKEN|PORT|DATA_DIR|STORAGE.*|S3_.*|DGII_.*|SEND_.*|QUEUE_.*|WEBHOOKS_.*|SMTP_.*|LOG_LEVEL)$/.test(
        entry[0],
      ),
  ),
);

export interface WorkerProcess {
  child: ChildProcess;
  /** Resolves once the process has started its roles (and listens, with the HTTP role). */
  ready: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The tail of what it printed, enough to explain a failure. */
  output: () => string;
}

/** `nodeOptions` go before the program, after tsx (e.g. `--import` of a preload written in TypeScript). */
export function startWorkerProcess(env: Record<string, string>, nodeOptions: readonly string[] = []): WorkerProcess {
  return startEcfProcess('worker', env, nodeOptions);
}

/** Any role command of `ecf` (`start`, `serve`, `worker`, `scheduler`) in a child process, as startWorkerProcess. */
export function startEcfProcess(
  command: 'start' | 'serve' | 'worker' | 'scheduler',
  env: Record<string, string>,
  nodeOptions: readonly string[] = [],
): WorkerProcess {
  const child = spawn(process.execPath, [...nodeProgram(ecfMain, nodeOptions), command], {
    cwd: root,
    env: { ...inherited, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
    if (output.includes('ecf-service running') || output.includes('ecf-service listening')) markReady();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      resolve({ code, signal });
    });
  });
  return { child, ready, exited, output: () => output };
}
