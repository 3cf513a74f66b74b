import type { Db } from '../../platform/db/database.js';
import { transact, type Trx } from '../../platform/db/transact.js';
import { ok, type Failure, type Result } from '../../platform/result.js';
import type { Change, CompaniesService } from '../companies/index.js';
import { recordMessageOnce } from './cloud-messages.repo.js';
import type { ControlPlaneEvent, EventOutcome } from './control-plane.schema.js';
import type { ControlPlaneTables } from './tables.js';

/** Field errors from a service point into the event's data; in the request they sit under /data. */
function underData<T>(result: Result<T>): Result<T> {
  if (result.ok) return result;
  const failure: Failure = { ...result.failure };
  if (failure.errors !== undefined)
    failure.errors = failure.errors.map((error) => ({ ...error, pointer: `/data${error.pointer}` }));
  return { ok: false, failure };
}

/**
 * `companyChanged` runs once an applied event has committed, so that reads kept in this process are read again; it
 * is awaited, so what the process keeps elsewhere about the company (the embedded sandbox's registry, src/app.ts)
 * is up to date when the control plane gets its answer. It must not throw: the event is applied by then.
 */
export function createControlPlaneService(deps: {
  db: Db<ControlPlaneTables>;
  companies: CompaniesService;
  companyChanged: (companyId: string) => void | Promise<void>;
}) {
  const { db, companies, companyChanged } = deps;

  async function dispatch(
    trx: Trx<ControlPlaneTables>,
    event: ControlPlaneEvent,
  ): Promise<Result<{ companyId: string; change: Change<unknown> }>> {
    const withCompany = <T extends { id: string }>(result: Result<Change<T>>) =>
      result.ok ? ok({ companyId: result.value.value.id, change: result.value }) : result;
    switch (event.type) {
      case 'company.provisioned':
        return withCompany(await companies.provision(trx, event.data));
      case 'company.updated':
        return withCompany(await companies.update(trx, event.data));
      case 'company.permissions_changed':
        return withCompany(await companies.setPermissions(trx, event.data));
      case 'company.suspended':
        return withCompany(await companies.setPermissions(trx, { ...event.data, permissions: 'suspended' }));
      case 'certificate.installed': {
        const result = await companies.installCertificate(trx, event.data);
        return result.ok ? ok({ companyId: event.data.companyId, change: result.value }) : result;
      }
    }
  }

  return {
    /**
     * Applies one signed event in one transaction with the record of its id: a replayed id is refused, a failed
     * event leaves no trace (so the control plane may retry it), and re-sending the same content under a new id
     * has no further effect.
     */
    async apply(eventId: string, event: ControlPlaneEvent): Promise<Result<EventOutcome>> {
      const companyId = 'companyId' in event.data ? event.data.companyId : null;
      const result = await transact<EventOutcome>(db, async (trx) => {
        const recorded = await recordMessageOnce(trx, eventId, event.type, companyId);
        if (!recorded.ok) return recorded;
        const applied = underData(await dispatch(trx, event));
        if (!applied.ok) return applied;
        return ok({
          eventId,
          type: event.type,
          companyId: applied.value.companyId,
          outcome: applied.value.change.changed ? 'applied' : 'unchanged',
        });
      });
      if (result.ok) await companyChanged(result.value.companyId);
      return result;
    },
  };
}

export type ControlPlaneService = ReturnType<typeof createControlPlaneService>;
