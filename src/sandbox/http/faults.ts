// Fault injection per service (admin routes set them): what a flaky DGII does to a client. Faults that stop the
// request (timeout, reset, 5xx, maintenance) act here, before the service runs; `slow` delays it; those only the
// service can act out (accept then lose, reject) are handed to it on the request.
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import type { SandboxFaultMode, SandboxFaultsTable } from '../state/schema.js';
import { remembered } from '../state/state-cache.js';
import { recordArrival } from './arrivals.js';
import type { SandboxApp, SandboxContext } from './context.js';
import { environmentOf, type SandboxService } from './sandbox-route.js';

/** Services that receive documents: a fault there is written to the arrivals log too. */
const receiving: ReadonlySet<SandboxService> = new Set([
  'recepcion',
  'recepcionfc',
  'anulacionrangos',
  'aprobacioncomercial',
]);

/** How long `timeout` holds a request when the fault gives no delay: longer than any sane client timeout. */
const defaultTimeoutMs = 120_000;

type Fault = Pick<SandboxFaultsTable, 'service' | 'mode' | 'probability' | 'remaining' | 'delay_ms'> & { id: number };

/** The faults still active, of every service, oldest first: asked on every request, so remembered (state-cache.ts). */
function activeFaults(context: SandboxContext): Promise<Fault[]> {
  return remembered(context.db, 'faults', () =>
    context.db
      .selectFrom('sandbox_faults')
      .select(['id', 'service', 'mode', 'probability', 'remaining', 'delay_ms'])
      .where((eb) => eb.or([eb('remaining', 'is', null), eb('remaining', '>', 0)]))
      .orderBy('id')
      .execute(),
  );
}

function isSpent(fault: Fault): boolean {
  return fault.remaining !== null && fault.remaining <= 0;
}

/** The fault that hits this request, if any (and counts it down). */
async function takeFault(context: SandboxContext, service: SandboxService): Promise<Fault | undefined> {
  for (const fault of await activeFaults(context)) {
    if (fault.service !== service || isSpent(fault)) continue;
    if (fault.probability < 1 && context.random() >= fault.probability) continue;
    if (fault.remaining !== null) {
      // Counted down in the database, in one statement, so two concurrent requests (even in two processes sharing
      // the tables) cannot both take the last one; the remembered copy follows the count it returns.
      const taken = await context.db
        .updateTable('sandbox_faults')
        .set({ remaining: sql<number>`remaining - 1` })
        .where('id', '=', fault.id)
        .where('remaining', '>', 0)
        .returning('remaining')
        .executeTakeFirst();
      fault.remaining = taken?.remaining ?? 0;
      if (taken === undefined) continue;
    }
    return fault;
  }
  return undefined;
}

/** Whether a maintenance fault is active for the service (status routes report it). */
export async function inMaintenance(context: SandboxContext, service: SandboxService): Promise<boolean> {
  return (await activeFaults(context)).some(
    (fault) => fault.service === service && fault.mode === 'maintenance' && !isSpent(fault),
  );
}

export function installFaults(app: SandboxApp, context: SandboxContext): void {
  app.addHook('onRequest', async (request, reply) => {
    const service = request.routeOptions.config.sandboxService;
    if (service === undefined) return;
    const fault = await takeFault(context, service);
    if (fault === undefined) return;
    const mode: SandboxFaultMode = fault.mode;
    context.log.info({ service, mode }, 'sandbox: injecting a fault');
    if (receiving.has(service) && mode !== 'slow' && mode !== 'accept_then_lose' && mode !== 'reject') {
      const environment = environmentOf((request.params as { env?: string }).env ?? '') ?? 'unknown';
      await recordArrival(context, { service, environment, outcome: `fault:${mode}` });
    }
    switch (mode) {
      case 'slow':
        await sleep(fault.delay_ms);
        return;
      case 'timeout':
        await sleep(fault.delay_ms > 0 ? fault.delay_ms : defaultTimeoutMs);
        request.raw.socket.destroy();
        return reply.hijack();
      case 'reset':
        request.raw.socket.destroy();
        return reply.hijack();
      case 'http500':
        return reply.code(500).type('text/plain; charset=utf-8').send('Internal Server Error');
      case 'http503':
        return reply.code(503).type('text/plain; charset=utf-8').send('Service Unavailable');
      case 'maintenance':
        return reply.code(503).send({ mensaje: 'El servicio se encuentra en mantenimiento. Intente más tarde.' });
      case 'accept_then_lose':
      case 'reject':
        request.sandboxFault = mode;
        return;
    }
  });
}
