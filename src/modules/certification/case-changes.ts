// Recording what became of a certification case, a step or a process: the row, its timeline entry and its webhook
// event, in the caller's transaction (DESIGN §6: every change of state is a timeline event with its cause).
import type { FiscalEnvironment } from '../../config.js';
import type { DgiiMessageRow } from '../../platform/db/schema.js';
import type { CertificationCaseStatus, CertificationTables } from './tables.js';
import type { Trx } from '../../platform/db/transact.js';
import { recordDomainEvent } from '../../platform/events/domain-events.js';
import * as repo from './certification.repo.js';

export interface CaseChange {
  status: CertificationCaseStatus;
  cause: string;
  waitingFor?: string | null;
  documentId?: string | null;
  estado?: string | null;
  codigo?: string | null;
  mensajes?: DgiiMessageRow[];
  sent?: boolean;
  verdict?: boolean;
  /** Leaves the lane (a rejection, or a case given back to `pending` to be handed in again). */
  unqueue?: boolean;
}

export function createCaseChanges(environment: FiscalEnvironment) {
  async function changeCase(
    trx: Trx<CertificationTables>,
    process: repo.ProcessRow,
    row: repo.CaseRow,
    change: CaseChange,
    at: Date,
  ): Promise<void> {
    await repo.updateCase(trx, row, {
      status: change.status,
      updated_at: at,
      ...(change.waitingFor === undefined ? {} : { waiting_for: change.waitingFor }),
      ...(change.documentId === undefined ? {} : { document_id: change.documentId }),
      ...(change.estado === undefined ? {} : { estado: change.estado }),
      ...(change.codigo === undefined ? {} : { codigo: change.codigo }),
      ...(change.mensajes === undefined ? {} : { mensajes: JSON.stringify(change.mensajes) }),
      ...(change.sent === true ? { sent_at: at } : {}),
      ...(change.verdict === true ? { verdict_at: at } : {}),
      ...(change.unqueue === true ? { queued_at: null } : {}),
    });
    if (change.status === row.status) return;
    await repo.insertEvent(trx, {
      processId: process.id,
      at,
      subject: `${row.kind} ${row.case_key}`,
      status: change.status,
      cause: change.cause,
    });
    await recordDomainEvent(trx, {
      companyId: process.company_id,
      environment,
      type: 'certification.case_updated',
      payload: {
        processId: process.id,
        caseKey: row.case_key,
        status: change.status,
        kind: row.kind,
        ecfType: row.ecf_type,
        step: row.step,
        documentId: change.documentId ?? row.document_id,
        estado: change.estado ?? row.estado,
        mensajes: change.mensajes ?? row.mensajes,
      },
      occurredAt: at,
    });
  }

  async function changeStep(
    trx: Trx<CertificationTables>,
    process: repo.ProcessRow,
    step: { number: number; key: string | null },
    status: repo.StepRow['status'],
    cause: string,
    at: Date,
    evidence?: Record<string, unknown>,
  ): Promise<void> {
    await repo.setStep(trx, process.id, step.number, { status, at, ...(evidence === undefined ? {} : { evidence }) });
    await repo.insertEvent(trx, { processId: process.id, at, subject: `step ${String(step.number)}`, status, cause });
    await recordDomainEvent(trx, {
      companyId: process.company_id,
      environment,
      type: 'certification.step_updated',
      payload: { processId: process.id, step: step.number, key: step.key, status },
      occurredAt: at,
    });
  }

  async function changeProcess(
    trx: Trx<CertificationTables>,
    process: repo.ProcessRow,
    change: {
      status: repo.ProcessRow['status'];
      cause: string;
      failure?: Record<string, unknown>;
      cancelReason?: string;
    },
    at: Date,
  ): Promise<void> {
    await repo.setProcess(trx, process.id, {
      status: change.status,
      at,
      ...(change.failure === undefined ? {} : { failure: change.failure }),
      ...(change.cancelReason === undefined ? {} : { cancelReason: change.cancelReason }),
    });
    await repo.insertEvent(trx, {
      processId: process.id,
      at,
      subject: 'process',
      status: change.status,
      cause: change.cause,
    });
    await recordDomainEvent(trx, {
      companyId: process.company_id,
      environment,
      type: 'certification.process_updated',
      payload: { processId: process.id, status: change.status },
      occurredAt: at,
    });
  }

  return { changeCase, changeStep, changeProcess };
}

export type CaseChanges = ReturnType<typeof createCaseChanges>;
