// Integrators creating and sending invoices while a real part of the service fails (issue 43), and what must hold
// once it is back: every document a client saw created ends accepted and reached DGII once, every e-NCF handed out
// numbers a stored document or is burned, none twice, and the archive verifier finds nothing.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FullDb } from '../../src/database.js';
import { ecfDocuments } from './ecf-documents.js';
import { receptionsPerEncf, type RunningSandbox } from './sandbox-kit.js';
import type { TestApp } from './test-app.js';

/** One HTTP answer, whichever way the request went (a real socket or inject); `status` a string when none came. */
export interface CallAnswer {
  status: number | string;
  type: string;
  text: string;
}

export type Call = (
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<CallAnswer>;

export interface Answer {
  phase: string;
  what: string;
  status: number | string;
  problem?: string;
}

export interface Load {
  /** Every answer the clients got, with the phase it came in. */
  answers: Answer[];
  /** Idempotency key → the document its creation answered. */
  created: Map<string, { id: string; eNCF: string }>;
  phase: string;
  /** Stops the clients after their current call and waits for them. */
  stop(): Promise<void>;
}

/** The app's API through inject, as `Call`. */
export function injectCall(app: TestApp, apiKey: string): Call {
  return async (method, path, body, headers = {}) => {
    const response = await app.app.inject({
      method,
      url: path,
      headers: { 'x-api-key': apiKey, ...headers },
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });
    return { status: response.statusCode, type: String(response.headers['content-type'] ?? ''), text: response.body };
  };
}

/**
 * `clients` integrators, each creating an invoice under an Idempotency-Key and sending it, over and over. An answer
 * in `retried` that is problem+json is tried again after a pause (as a client told Retry-After would, but quicker);
 * any other unexpected answer ends that client, and the test sees it among the answers.
 */
export function startLoad(call: Call, options: { clients: number; retried: readonly number[] }): Load {
  let stopping = false;
  const load: Load = { answers: [], created: new Map(), phase: 'before', stop: () => Promise.resolve() };

  async function until(what: string, wanted: number, ask: () => Promise<CallAnswer>) {
    for (;;) {
      const answer = await ask();
      const problem =
        typeof answer.status === 'number' && answer.status >= 400 && answer.type.startsWith('application/problem+json')
          ? (JSON.parse(answer.text) as { code?: string }).code
          : undefined;
      load.answers.push({
        phase: load.phase,
        what,
        status: answer.status,
        ...(problem === undefined ? {} : { problem }),
      });
      if (answer.status === wanted) return answer;
      if (stopping || problem === undefined || !options.retried.includes(answer.status as number)) return undefined;
      await sleep(200);
    }
  }

  async function integrator(client: number) {
    for (let n = 0; !stopping; n++) {
      const key = `carga-${String(client)}-${String(n)}`;
      const made = await until('create', 201, () =>
        call('POST', '/api/v1/documentos', ecfDocuments['31'], { 'idempotency-key': key }),
      );
      if (made === undefined) return;
      const document = (JSON.parse(made.text) as { data: { id: string; eNCF: string } }).data;
      const before = load.created.get(key);
      assert.ok(before === undefined || before.id === document.id, `key ${key} made two documents`);
      load.created.set(key, { id: document.id, eNCF: document.eNCF });
      if ((await until('send', 202, () => call('POST', `/api/v1/documentos/${document.id}/enviar`))) === undefined)
        return;
    }
  }

  const running = Promise.all(Array.from({ length: options.clients }, (_, client) => integrator(client)));
  load.stop = async () => {
    stopping = true;
    await running;
  };
  return load;
}

/** The answers other than `expected` statuses, for an assert.deepEqual against []. */
export function unexpectedAnswers(load: Load, expected: readonly number[]): Answer[] {
  return load.answers.filter((answer) => !expected.includes(answer.status as number));
}

/**
 * What must hold once the fault is over: every document created ends accepted and reached DGII's reception once;
 * the company's e-CF 31 range is exactly its stored and burned numbers; the archive verifier finds nothing (it is
 * asked a few times: abandoned writes are recorded once the database answers again). `app` reads the records (it
 * may not be the process that served the load).
 */
export async function assertNothingLostOrDoubled(
  world: { app: TestApp; sandbox: RunningSandbox; companyId: string },
  load: Load,
  acceptedWithinMs = 120_000,
): Promise<void> {
  const db: FullDb = world.app.application.database.db;
  const ids = [...load.created.values()].map((document) => document.id);
  const deadline = Date.now() + acceptedWithinMs;
  for (;;) {
    const states = await db
      .selectFrom('documents')
      .select(['status', (eb) => eb.fn.countAll<number>().as('count')])
      .where('id', 'in', ids)
      .groupBy('status')
      .execute();
    if (states.length === 1 && states[0]?.status === 'accepted' && states[0].count === ids.length) break;
    if (Date.now() > deadline) {
      const stuck = await db
        .selectFrom('documents')
        .selectAll()
        .where('id', 'in', ids)
        .where('status', '!=', 'accepted')
        .execute();
      const stuckIds = stuck.map((row) => row.id);
      const events = await db.selectFrom('document_events').selectAll().where('document_id', 'in', stuckIds).execute();
      const work = await db.selectFrom('outbound_work').selectAll().where('item_id', 'in', stuckIds).execute();
      assert.fail(`not all accepted: ${JSON.stringify({ states, stuck, events, work }, null, 1)}`);
    }
    await sleep(250);
  }

  const times = await receptionsPerEncf(world.sandbox);
  for (const { eNCF } of load.created.values())
    assert.equal(times.get(eNCF), 1, `${eNCF} reached DGII ${String(times.get(eNCF) ?? 0)} times`);

  const range = await db
    .selectFrom('sequence_ranges')
    .select(['id', 'first_number', 'next_number'])
    .where('company_id', '=', world.companyId)
    .where('ecf_type', '=', '31')
    .executeTakeFirstOrThrow();
  const stored = await db.selectFrom('documents').select('encf').where('range_id', '=', range.id).execute();
  const burned = await db.selectFrom('sequence_burned').select('encf').where('range_id', '=', range.id).execute();
  const numbers = [...stored, ...burned].map((row) => Number(row.encf.slice(3))).sort((a, b) => a - b);
  assert.deepEqual(
    numbers,
    Array.from({ length: range.next_number - range.first_number }, (_, i) => range.first_number + i),
    'every e-NCF handed out numbers one stored document or is burned',
  );

  let failing: unknown[] = [];
  for (let round = 0; round < 20; round++) {
    failing = (await world.app.application.services.archive.runPass({})).failing;
    if (failing.length === 0) break;
    await sleep(500);
  }
  assert.deepEqual(failing, []);
}
