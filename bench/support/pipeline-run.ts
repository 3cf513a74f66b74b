// Documents through the sending pipeline of a BenchWorld, from `enviar` to DGII's final verdict. Timings come from
// the pipeline's own records: the `queued` event (written by enviar) to `final_at`.
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { documentPolls, documentSends } from '../../src/modules/sending/index.js';
import { pendingCounts } from '../../src/modules/documents/index.js';
import { inParallel, type BenchWorld, type Created } from './sending-world.js';
import { percentile } from './statistics.js';

/** enviar calls in flight, like integrators sending their documents one after another on a few connections. */
export const ENVIAR_CONCURRENCY = 20;

export interface PipelineRun {
  /** First enviar to the last final verdict. */
  elapsedMs: number;
  /** When each verdict was recorded, ms since the first enviar. */
  completions: number[];
  /** First enviar to the last trackId: the send stage's own rate, without the poll stage's tail. */
  sentMs: number;
  /** How long the enviar calls themselves took, all of them. */
  enviarMs: number;
  latencies: number[];
  /** queued → in_process (the sender: its claim, reception, trackId recorded). */
  sendStage: number[];
  /** queued → sending: waiting for a worker (the sender's claim, the backlog of the documents queued before). */
  queueWait: number[];
  /** sending → in_process: the worker's own work (claim committed, company and signed XML read, reception, record). */
  sendWork: number[];
  /** in_process → final (waiting for the poller, asking, recording the verdict). */
  pollStage: number[];
  polls: number[];
  statuses: Record<string, number>;
  /** The bench's own statements while it waited, one `select outbound_work` each, to leave out of the app's. */
  ownQueries: number;
}

/** Runs `documents` through the pipeline; `finished` runs as soon as the last is final, before the run's own reads. */
export async function throughPipeline(
  world: BenchWorld,
  documents: readonly Created[],
  timeoutMs: number,
  finished: () => Promise<void> = () => Promise.resolve(),
): Promise<PipelineRun> {
  const db = world.app.application.database.db;
  const ids = documents.map((document) => document.id);
  let ownQueries = 0;
  const started = Date.now();
  await inParallel(ids, ENVIAR_CONCURRENCY, (id) => world.send(id));
  const enviarMs = Date.now() - started;
  const deadline = started + timeoutMs;
  // Counts the documents still on their way (the bench's alone, one run at a time) as the health view does, through
  // their queues: the bench's own questions are served by the app's PostgreSQL backends, whose CPU the run
  // reports as the pipeline's, and asking about each document every 50 ms cost about 2 ms of it each time.
  for (;;) {
    ownQueries++;
    const open = (await pendingCounts(db, world.app.config.fiscalEnv, [documentSends, documentPolls])).reduce(
      (sum, pending) => sum + pending.count,
      0,
    );
    if (open === 0) break;
    if (Date.now() > deadline)
      throw new Error(`${String(open)} of ${String(ids.length)} documents are not final after ${String(timeoutMs)} ms`);
    await sleep(50);
  }
  await finished();
  // One row per document: when enviar queued it, when DGII gave its trackId, when the verdict was recorded.
  const rows = await sql<{
    status: string;
    queued_at: Date;
    sending_at: Date | null;
    received_at: Date | null;
    final_at: Date;
    poll_count: number;
  }>`
    select d.status, d.final_at, d.poll_count,
      (select min(e.at) from document_events e where e.document_id = d.id and e.type = 'queued') as queued_at,
      (select max(e.at) from document_events e where e.document_id = d.id and e.type = 'dgii.sending') as sending_at,
      (select min(e.at) from document_events e where e.document_id = d.id and e.type = 'dgii.received') as received_at
    from documents d where d.id in (${sql.join(ids)})`.execute(db);
  const statuses: Record<string, number> = {};
  const run: PipelineRun = {
    elapsedMs: 0,
    completions: [],
    sentMs: 0,
    enviarMs,
    latencies: [],
    sendStage: [],
    queueWait: [],
    sendWork: [],
    pollStage: [],
    polls: [],
    statuses,
    ownQueries,
  };
  let last = started;
  let lastSent = started;
  for (const row of rows.rows) {
    statuses[row.status] = (statuses[row.status] ?? 0) + 1;
    const queued = new Date(row.queued_at).getTime();
    const final = new Date(row.final_at).getTime();
    last = Math.max(last, final);
    run.latencies.push(final - queued);
    run.completions.push(final - started);
    if (row.received_at !== null) {
      const received = new Date(row.received_at).getTime();
      lastSent = Math.max(lastSent, received);
      run.sendStage.push(received - queued);
      if (row.sending_at !== null) {
        const sending = new Date(row.sending_at).getTime();
        run.queueWait.push(sending - queued);
        run.sendWork.push(received - sending);
      }
      run.pollStage.push(final - received);
      // A verdict is recorded without counting its own question (sending/poll-target.ts): polls = poll_count + 1.
      run.polls.push(row.poll_count + 1);
    }
  }
  run.elapsedMs = last - started;
  run.sentMs = lastSent - started;
  return run;
}

/** consultaresultado asked per document: the mean, the median and the most. */
export function describePolls(polls: readonly number[]): string {
  const sorted = [...polls].sort((a, b) => a - b);
  const total = polls.reduce((sum, n) => sum + n, 0);
  return `${(total / Math.max(1, polls.length)).toFixed(2)} consultaresultado per document (p50 ${String(percentile(sorted, 50))}, max ${String(sorted[sorted.length - 1] ?? 0)})`;
}

/**
 * Documents per second once the run flows: the verdicts after the first over the time from the first to the last. A
 * run's first verdict comes after its latency (for the pipeline at least the first poll's delay, a second), which
 * over a run of a few seconds would count as a lack of throughput and favour the plain client, whose first verdict
 * comes at once; the latency is in the row's latencies.
 */
export function flowingRate(completions: readonly number[]): number {
  const sorted = [...completions].sort((a, b) => a - b);
  const first = sorted[0];
  const last = sorted[sorted.length - 1];
  if (first === undefined || last === undefined || last <= first) return Number.NaN;
  return (sorted.length - 1) / ((last - first) / 1_000);
}
