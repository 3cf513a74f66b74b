// The DGII sandbox for the sending benches, in a process of its own (started by sandbox-process.ts): DGII is another
// machine, and a sandbox sharing the service's event loop would be slowed by the very pipeline it measures (and slow
// it in turn). Driven over IPC: it answers `ready` with its URL, `provision` registers the issuer on DGII's side,
// `processing-delay` sets how long DGII takes to decide, `usage` reports the CPU and event-loop use since the
// previous `usage`, `close` ends it.
import { sql } from 'kysely';
import { ensureTestRanges, upsertTaxpayer } from '../../src/sandbox/index.js';
import { startSandbox } from '../../test/support/sandbox-kit.js';
import { poolSize } from './deployed.js';
import { ownUsage } from './process-cpu.js';

export type SandboxRequest =
  | { type: 'provision'; rnc: string; name: string; certificateSha256: string }
  | { type: 'processing-delay'; ms: number }
  | { type: 'usage' }
  | { type: 'close' };
export type SandboxReply =
  | { type: 'ready'; url: string; database: string }
  | { type: 'done' }
  | { type: 'usage'; cpuMs: number; eventLoopUtilization: number }
  | { type: 'failed'; message: string };

const send = (reply: SandboxReply) => process.send?.(reply);

try {
  const sandbox = await startSandbox({ embedded: process.env['BENCH_EMBEDDED'] === '1', poolSize });
  const settings = await sandbox.admin('PUT', '/settings', { processingDelayMs: 0 });
  if (settings.status !== 200) throw new Error(`sandbox settings: HTTP ${String(settings.status)}`);
  const { db, clock } = sandbox.sandbox.context;
  const database = (await sql<{ name: string }>`select current_database() as name`.execute(db)).rows[0]?.name ?? '';

  let usage = ownUsage();
  process.on('message', (request: SandboxRequest) => {
    void (async () => {
      try {
        switch (request.type) {
          case 'provision':
            await upsertTaxpayer(db, {
              rnc: request.rnc,
              name: request.name,
              certificateSha256: [request.certificateSha256],
            });
            await ensureTestRanges(db, request.rnc, 'testecf', clock.now());
            send({ type: 'done' });
            return;
          case 'processing-delay': {
            const answer = await sandbox.admin('PUT', '/settings', { processingDelayMs: request.ms });
            if (answer.status !== 200) throw new Error(`sandbox settings: HTTP ${String(answer.status)}`);
            send({ type: 'done' });
            return;
          }
          case 'usage':
            send({ type: 'usage', ...usage() });
            usage = ownUsage();
            return;
          case 'close':
            await sandbox.close();
            process.disconnect();
            return;
        }
      } catch (error) {
        send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
      }
    })();
  });
  send({ type: 'ready', url: sandbox.url, database });
} catch (error) {
  send({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exitCode = 1;
  process.disconnect();
}
