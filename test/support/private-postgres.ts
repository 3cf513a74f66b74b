// A PostgreSQL server of a test's own, in a temp dir on a free port, for tests of database outages: they restart,
// stop and start it, which must never happen to the shared server on 5432 that every other test uses.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, chown, mkdir, mkdtemp, open, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import pg from 'pg';
import { freePort } from './free-port.js';

export type ShutdownMode = 'fast' | 'immediate';

export interface PrivatePostgres {
  readonly port: number;
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  readonly adminUrl: string;
  /** Creates a fresh database and returns its URL. */
  createDatabase(name?: string): Promise<string>;
  restart(mode: ShutdownMode): Promise<void>;
  stop(mode: ShutdownMode): Promise<void>;
  start(): Promise<void>;
  /** The last ~4 KB of the server log, for failure messages. */
  logTail(): Promise<string>;
  /** Stops the server if it runs and removes its directory. */
  close(): Promise<void>;
}

const commandTimeoutMs = 30_000;
const serverUser = 'postgres';

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function findOnPath(name: string, extra: string[] = []): Promise<string | undefined> {
  for (const dir of [...(process.env.PATH ?? '').split(delimiter), ...extra]) {
    if (dir !== '' && (await isExecutable(join(dir, name)))) return join(dir, name);
  }
  return undefined;
}

/** The directory holding initdb and pg_ctl: PATH's, else Debian's highest /usr/lib/postgresql/<major>/bin. */
async function findServerBin(): Promise<string | undefined> {
  const initdb = await findOnPath('initdb');
  if (initdb !== undefined && (await findOnPath('pg_ctl')) !== undefined) return join(initdb, '..');
  const majors = await readdir('/usr/lib/postgresql').catch(() => []);
  for (const major of majors.filter((m) => /^\d+$/.test(m)).sort((a, b) => Number(b) - Number(a))) {
    const bin = `/usr/lib/postgresql/${major}/bin`;
    if ((await isExecutable(join(bin, 'initdb'))) && (await isExecutable(join(bin, 'pg_ctl')))) return bin;
  }
  return undefined;
}

function userExists(name: string): Promise<boolean> {
  return run('id', ['-u', name], process.cwd()).then(
    () => true,
    () => false,
  );
}

/** initdb and pg_ctl refuse to run as root, so as root they run as the postgres OS user. */
async function asServerUser(): Promise<{ command: string; args: string[] } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const runuser = await findOnPath('runuser', ['/usr/sbin', '/sbin']);
  if (runuser !== undefined) return { command: runuser, args: ['-u', serverUser, '--'] };
  const setpriv = await findOnPath('setpriv', ['/usr/bin', '/bin']);
  if (setpriv !== undefined) {
    return { command: setpriv, args: [`--reuid=${serverUser}`, `--regid=${serverUser}`, '--init-groups', '--'] };
  }
  throw new Error('private PostgreSQL: running as root, but neither runuser nor setpriv is there to drop to postgres');
}

export async function privatePostgresAvailable(): Promise<boolean> {
  if ((await findServerBin()) === undefined) return false;
  return process.getuid?.() !== 0 || (await userExists(serverUser));
}

/** Runs a command to its end, throwing with its output when it fails or outlasts the timeout. */
function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // stdin ignored: pg_ctl's server inherits nothing from us, so 'close' comes when pg_ctl ends.
    const child = spawn(command, args, { cwd, timeout: commandTimeoutMs, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve(output);
      else {
        const how = signal !== null ? `was killed by ${signal} (timeout ${commandTimeoutMs} ms?)` : `exited ${code}`;
        reject(new Error(`${[command, ...args].join(' ')} ${how}:\n${output}`));
      }
    });
  });
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = await findServerBin();
  if (bin === undefined) {
    throw new Error('private PostgreSQL: no initdb and pg_ctl on PATH nor under /usr/lib/postgresql/<major>/bin');
  }
  if (process.getuid?.() === 0 && !(await userExists(serverUser))) {
    throw new Error(`private PostgreSQL: running as root, but there is no '${serverUser}' OS user to run the server`);
  }
  const wrapper = await asServerUser();
  const dir = await mkdtemp(join(tmpdir(), 'ecf-pg-'));
  const dataDir = join(dir, 'data');
  // Its own socket dir, so nothing collides with the shared server's /var/run/postgresql.
  const socketDir = join(dir, 'socket');
  const logFile = join(dir, 'server.log');
  await mkdir(socketDir);
  if (wrapper !== undefined) {
    const [uid, gid] = await Promise.all([
      run('id', ['-u', serverUser], dir).then(Number),
      run('id', ['-g', serverUser], dir).then(Number),
    ]);
    await chown(dir, uid, gid);
    await chown(socketDir, uid, gid);
  }
  // The command runs in the temp dir: the postgres user may not be allowed into the caller's working directory.
  const pgTool = (tool: string, args: string[]) =>
    wrapper === undefined
      ? run(join(bin, tool), args, dir)
      : run(wrapper.command, [...wrapper.args, join(bin, tool), ...args], dir);

  const port = await freePort();
  // Durability off: this server's data is thrown away, and tests want it fast.
  const serverOptions = [
    `-p ${port}`,
    `-k '${socketDir}'`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=100',
  ].join(' ');
  const start = async () => {
    await pgTool('pg_ctl', ['start', '-D', dataDir, '-l', logFile, '-w', '-o', serverOptions]);
  };

  try {
    await pgTool('initdb', ['-D', dataDir, '-A', 'trust', '-U', serverUser, '--no-sync', '-E', 'UTF8', '--locale=C']);
    await start();
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }

  const adminUrl = `postgres://${serverUser}@127.0.0.1:${port}/postgres`;
  return {
    port,
    adminUrl,
    async createDatabase(name = `test_${randomBytes(6).toString('hex')}`) {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`create database ${client.escapeIdentifier(name)}`);
      } finally {
        await client.end();
      }
      return `postgres://${serverUser}@127.0.0.1:${port}/${encodeURIComponent(name)}`;
    },
    async restart(mode) {
      await pgTool('pg_ctl', ['restart', '-D', dataDir, '-l', logFile, '-m', mode, '-w', '-o', serverOptions]);
    },
    async stop(mode) {
      await pgTool('pg_ctl', ['stop', '-D', dataDir, '-m', mode, '-w']);
    },
    start,
    async logTail() {
      const file = await open(logFile).catch(() => undefined);
      if (file === undefined) return '(no server log)';
      try {
        const { size } = await file.stat();
        const length = Math.min(size, 4096);
        const { buffer } = await file.read(Buffer.alloc(length), 0, length, size - length);
        return buffer.toString();
      } finally {
        await file.close();
      }
    },
    async close() {
      // pg_ctl status exits 3 when no server runs; anything else is worth stopping.
      const running = await pgTool('pg_ctl', ['status', '-D', dataDir]).then(
        () => true,
        () => false,
      );
      if (running) await pgTool('pg_ctl', ['stop', '-D', dataDir, '-m', 'immediate', '-w']);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
