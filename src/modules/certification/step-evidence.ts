// Steps 9 and 11 are done by DGII's own traffic to the company's receiver, not by a confirmation (research/
// certification.md §6.7): e-CF received since step 8 opened (the portal's "Enviar prueba de comprobantes" may be
// clicked before it is confirmed here, and DGII sends at once), and commercial approvals received since step 10
// opened. We only read what the receiver recorded.
import type { FiscalEnvironment } from '../../config.js';
import type { Trx } from '../../platform/db/transact.js';
import * as repo from './certification.repo.js';
import type { CertificationTables } from './tables.js';
import { commercialResponsesSince } from '../documents/index.js';
import { receivedSince } from '../received/index.js';

/** When the step that starts a receiver test opened: DGII's traffic counts from then. */
async function openedAt(trx: Trx<CertificationTables>, processId: string, number: number): Promise<Date | undefined> {
  return (await repo.stepsOf(trx, processId)).find((row) => row.number === number)?.opened_at ?? undefined;
}

export async function stepEvidence(
  trx: Trx<CertificationTables>,
  process: repo.ProcessRow,
  step: repo.StepRow,
  context: { environment: FiscalEnvironment; expectedApprovals: number },
): Promise<{ cause: string; evidence: Record<string, unknown> } | undefined> {
  if (step.number === 9) {
    const since = await openedAt(trx, process.id, 8);
    if (since === undefined) return undefined;
    const received = await receivedSince(trx, process.company_id, context.environment, since);
    // A refusal fails DGII's test (the portal goes back to step 8); what counts is what came after the last one,
    // when the operator clicked again.
    const lastRefused = received.findLastIndex((row) => row.status === 'not_received');
    const acknowledged = received.slice(lastRefused + 1).filter((row) => row.status === 'received');
    if (acknowledged.length === 0) return undefined;
    return {
      cause: `${String(acknowledged.length)} e-CF from DGII received and acknowledged (ARECF Estado 0)`,
      evidence: {
        received: received.map((row) => ({
          id: row.id,
          issuer: row.issuer_rnc,
          eNCF: row.encf,
          status: row.status,
          reasonCode: row.reason_code,
          at: row.received_at.toISOString(),
        })),
      },
    };
  }
  if (step.number === 11) {
    const since = await openedAt(trx, process.id, 10);
    if (since === undefined) return undefined;
    const answered = await commercialResponsesSince(trx, process.company_id, context.environment, since);
    if (answered.length < Math.max(1, context.expectedApprovals)) return undefined;
    return {
      cause: `${String(answered.length)} commercial approvals from DGII received and answered`,
      evidence: {
        approvals: answered.map((row) => ({
          eNCF: row.encf,
          rncComprador: row.rnc_comprador,
          decision: row.decision,
          at: row.received_at.toISOString(),
        })),
      },
    };
  }
  return undefined;
}
