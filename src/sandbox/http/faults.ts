// Fault injection per service or route (admin routes set them; fault-targets.ts says where each lands): what a
// flaky DGII, or a flaky receiver, does to a client. Faults that stop the request (timeout, reset, 5xx, maintenance)
// act here, before the service runs; `slow` delays it; those only the service can act out (accept then lose,
// reject, ...) are handed to it on the request.
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { identifiersOf, type ReceivedIdentifiers } from '../../fiscal/receiving/received-ecf.js';
import type { SandboxFaultMode, SandboxFaultsTable } from '../state/schema.js';
import { remembered } from '../state/state-cache.js';
import { recordArrival } from './arrivals.js';
import type { SandboxApp, SandboxContext } from './context.js';
import { actingTarget, faultHits, isDocumentFault, receivingTargets, type FaultedRoute } from './fault-targets.js';
import { environmentOf, type SandboxFaultTarget, type SandboxService } from './sandbox-route.js';
import { readXmlUpload } from './xml-upload.js';

/**
 * Where a failed arrival is logged with the e-CF it carried: a receiver has no status query, so its client proves
 * what reached it by e-NCF. (DGII's services log failed arrivals by service only: their clients ask DGII.)
 */
const identifiesFailedArrivals: ReadonlySet<SandboxFaultTarget> = new Set(['emisorreceptor.recepcion']);

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
async function takeFault(context: SandboxContext, route: FaultedRoute): Promise<Fault | undefined> {
  for (const fault of await activeFaults(context)) {
    if (!faultHits(route, fault.service, fault.mode) || isSpent(fault)) continue;
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

/** The e-CF a failed request carried, read from its upload (the service will not read it). */
async function uploadedIdentifiers(request: FastifyRequest): Promise<Partial<ReceivedIdentifiers>> {
  const upload = await readXmlUpload(request);
  return upload.ok ? identifiersOf(upload.xml.toString('utf8'), upload.filename) : {};
}

async function recordFailedArrival(
  context: SandboxContext,
  request: FastifyRequest,
  service: SandboxService,
  target: SandboxFaultTarget,
  mode: SandboxFaultMode,
): Promise<void> {
  const environment = environmentOf((request.params as { env?: string }).env ?? '') ?? 'unknown';
  const carried = identifiesFailedArrivals.has(target) ? await uploadedIdentifiers(request) : {};
  await recordArrival(context, {
    service,
    environment,
    rnc: carried.RNCEmisor,
    encf: carried.eNCF,
    outcome: `fault:${mode}`,
  });
}

export function installFaults(app: SandboxApp, context: SandboxContext): void {
  // preHandler, not onRequest: a multipart upload can be read here (nothing has read it yet), which the
  // counterpart's reception needs to name the e-CF of a failed arrival.
  app.addHook('preHandler', async (request, reply) => {
    const { sandboxService: service, sandboxRoute: route } = request.routeOptions.config;
    if (service === undefined) return;
    const faulted: FaultedRoute = { service, route };
    const fault = await takeFault(context, faulted);
    if (fault === undefined) return;
    const mode: SandboxFaultMode = fault.mode;
    context.log.info({ service, route, mode }, 'sandbox: injecting a fault');
    const target = actingTarget(faulted);
    if (isDocumentFault(mode)) {
      request.sandboxFault = mode;
      return;
    }
    if (receivingTargets.has(target) && mode !== 'slow')
      await recordFailedArrival(context, request, service, target, mode);
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
        // With a delay, the 503 says when to come back (Retry-After, whole seconds, as an overloaded server does).
        if (fault.delay_ms > 0) void reply.header('retry-after', String(Math.ceil(fault.delay_ms / 1_000)));
        return reply.code(503).type('text/plain; charset=utf-8').send('Service Unavailable');
      case 'maintenance':
        return reply.code(503).send({ mensaje: 'El servicio se encuentra en mantenimiento. Intente más tarde.' });
    }
  });
}
