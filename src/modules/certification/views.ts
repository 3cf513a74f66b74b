// How certification rows read in the API.
import { stepNumbered } from '../../fiscal/certification/index.js';
import type { CaseView, ChecklistItem, ProcessView } from './certification.schema.js';
import type { CaseRow, ConfirmationRow, ProcessRow, StepRow } from './certification.repo.js';

const iso = (date: Date | null) => date?.toISOString() ?? null;

export function caseView(row: CaseRow): CaseView {
  return {
    caseKey: row.case_key,
    kind: row.kind,
    ecfType: row.ecf_type,
    step: row.step,
    origin: row.origin,
    route: row.route,
    status: row.status,
    waitingFor: row.waiting_for,
    documentId: row.document_id,
    dependsOn: row.depends_on,
    estado: row.estado,
    codigo: row.codigo,
    mensajes: row.mensajes,
    carriedFromProcessId: row.carried_from_process_id,
    sentAt: iso(row.sent_at),
    verdictAt: iso(row.verdict_at),
  };
}

export function processView(
  process: ProcessRow,
  steps: readonly StepRow[],
  cases: readonly CaseRow[],
  confirmations: readonly ConfirmationRow[],
  events: readonly { at: Date; subject: string; status: string; cause: string }[],
  checklist: ChecklistItem[],
): ProcessView {
  const count = (status: CaseRow['status']) => cases.filter((row) => row.status === status).length;
  return {
    id: process.id,
    status: process.status,
    label: process.label,
    environment: process.environment,
    failure: process.failure,
    cancelReason: process.cancel_reason,
    previousProcessId: process.previous_process_id,
    setSha256: process.set_sha256,
    steps: steps.map((row) => ({
      number: row.number,
      name: stepNumbered(row.number).name,
      key: row.key,
      mode: row.mode,
      status: row.status,
      openedAt: iso(row.opened_at),
      doneAt: iso(row.done_at),
      evidence: row.evidence,
    })),
    cases: {
      total: cases.length,
      pending: count('pending'),
      sent: count('sent'),
      accepted: count('accepted'),
      rejected: count('rejected'),
      error: count('error'),
    },
    confirmations: confirmations.map((row) => ({
      step: row.step,
      key: row.key,
      note: row.note,
      apiKeyId: row.api_key_id,
      correlationId: row.correlation_id,
      carriedFrom: row.carried_from,
      confirmedAt: row.confirmed_at.toISOString(),
    })),
    checklist,
    timeline: events.map((event) => ({
      at: event.at.toISOString(),
      subject: event.subject,
      status: event.status,
      cause: event.cause,
    })),
    createdAt: process.created_at.toISOString(),
    updatedAt: process.updated_at.toISOString(),
    endedAt: iso(process.ended_at),
  };
}
