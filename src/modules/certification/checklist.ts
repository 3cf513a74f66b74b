// What is left of a certification process, item by item (research/certification.md §6.10): the prerequisites,
// then each of the portal's 14 steps with what is done, what blocks and what the operator must do next.
import { certificationSteps, printedSlots } from '../../fiscal/certification/index.js';
import type { ChecklistItem } from './certification.schema.js';
import type { CaseRow, ProcessRow, StepRow } from './certification.repo.js';

export interface ReceiverLinks {
  /** The receiver URLs the portal asks for in step 1 (CERT) and step 12 (PRODUCTION). */
  readonly test: readonly string[];
  readonly production: readonly string[];
}

const dayMs = 86_400_000;

function stepItem(step: StepRow, detail: string, links: readonly string[] = []): ChecklistItem {
  const spec = certificationSteps[step.number - 1];
  const status =
    step.status === 'done'
      ? 'ok'
      : step.status === 'open'
        ? 'pending'
        : step.status === 'failed'
          ? 'attention'
          : 'blocked';
  return {
    step: step.number,
    id: spec?.key ?? `step_${String(step.number)}`,
    title: `${String(step.number)}. ${spec?.name ?? ''}`,
    status,
    required: true,
    detail,
    links: [...links],
  };
}

function casesDetail(cases: readonly CaseRow[], step: number): string {
  const own = cases.filter((row) => row.step === step);
  if (own.length === 0) return 'No cases yet: they are generated when the step before is done.';
  const accepted = own.filter((row) => row.status === 'accepted').length;
  const blocking = own.find((row) => row.status === 'rejected' || row.status === 'error');
  const byType = new Map<string, { accepted: number; total: number }>();
  for (const row of own) {
    const key = row.kind === 'ACECF' ? 'ACECF' : row.route === 'rfce' ? 'RFCE' : (row.ecf_type ?? '?');
    const entry = byType.get(key) ?? { accepted: 0, total: 0 };
    entry.total += 1;
    if (row.status === 'accepted') entry.accepted += 1;
    byType.set(key, entry);
  }
  const counts = [...byType]
    .map(([type, entry]) => `${type} ${String(entry.accepted)}/${String(entry.total)}`)
    .join(', ');
  return `${String(accepted)} of ${String(own.length)} accepted (${counts})${blocking === undefined ? '' : `; blocked by ${blocking.case_key}: ${blocking.status}${blocking.codigo === null ? '' : ` (${blocking.codigo})`}`}.`;
}

export function checklistOf(input: {
  process: ProcessRow;
  steps: readonly StepRow[];
  cases: readonly CaseRow[];
  links: ReceiverLinks;
  certificateNotAfter: string | null;
  now: Date;
}): ChecklistItem[] {
  const { steps, cases, links, now } = input;
  const notAfter = input.certificateNotAfter === null ? undefined : Date.parse(input.certificateNotAfter);
  const items: ChecklistItem[] = [
    {
      step: null,
      id: 'certificate',
      title: 'Company certificate',
      status: notAfter === undefined ? 'blocked' : notAfter - now.getTime() > 30 * dayMs ? 'ok' : 'attention',
      required: true,
      detail:
        notAfter === undefined
          ? 'Install the company certificate (.p12).'
          : `Valid until ${new Date(notAfter).toISOString()}${notAfter - now.getTime() > 30 * dayMs ? '' : ': renew it before the process ends'}.`,
      links: [],
    },
    {
      step: null,
      id: 'dgii_connection',
      title: 'Connection to DGII CERT',
      status: 'pending',
      required: false,
      detail:
        'Test it with POST /api/v1/dgii/prueba-conexion before the first run; the receiver must be reachable from the internet on port 443.',
      links: ['/api/v1/dgii/prueba-conexion'],
    },
  ];
  for (const step of steps) {
    const spec = certificationSteps[step.number - 1];
    const todo = spec?.todo ?? '';
    if (step.number === 1) items.push(stepItem(step, todo, links.test));
    else if (step.number === 2 || step.number === 3 || step.number === 4)
      items.push(stepItem(step, `${casesDetail(cases, step.number)} ${todo}`));
    else if (step.number === 12) items.push(stepItem(step, todo, links.production));
    else items.push(stepItem(step, todo));
  }
  const consumerInvoices = cases.filter(
    (row) => row.kind === 'ECF' && row.route === 'rfce' && row.document_id !== null,
  );
  if (consumerInvoices.length > 0) {
    items.push({
      step: 2,
      id: 'consumer_invoice_uploads',
      title: 'Full XML of consumer invoices under DOP 250,000 (portal upload)',
      status: 'attention',
      required: false,
      detail:
        'Upload each signed XML once in the portal\'s "Facturas de consumo < 250Mil" widget: a second upload of the same e-NCF resets the step.',
      links: consumerInvoices.map((row) => `/api/v1/documentos/${row.document_id ?? ''}/artefactos/signed-xml`),
    });
  }
  const slots = printedRepresentationSlots(cases);
  if (slots.length > 0) {
    items.push({
      step: 5,
      id: 'printed_representation_documents',
      title: 'One accepted document per printed-representation slot',
      status: slots.every((slot) => slot.documentId !== null) ? 'ok' : 'pending',
      required: false,
      detail: `Download the eleven PDFs in one zip (GET /api/v1/certificacion/${input.process.id}/representaciones-impresas) and upload them in the portal (10 MB in all); the QR must open CerteCF's ConsultaTimbre, with the security code and signing date under it: ${slots.map((slot) => `${slot.slot} ${slot.documentId ?? '(none accepted yet)'}`).join(', ')}.`,
      links: [
        ...slots.flatMap((slot) =>
          slot.documentId === null ? [] : [`/api/v1/documentos/${slot.documentId}/impresion`],
        ),
        ...(slots.every((slot) => slot.documentId !== null)
          ? [`/api/v1/certificacion/${input.process.id}/representaciones-impresas`]
          : []),
      ],
    });
  }
  const unsettled = cases.filter((row) => row.status !== 'accepted');
  items.push({
    step: null,
    id: 'cases_accepted',
    title: 'Every case accepted by DGII',
    status:
      unsettled.length === 0 ? 'ok' : unsettled.some((row) => row.status === 'rejected') ? 'attention' : 'pending',
    required: true,
    detail:
      unsettled.length === 0
        ? `All ${String(cases.length)} accepted.`
        : `${String(unsettled.length)} of ${String(cases.length)} not accepted yet.`,
    links: [],
  });
  return items;
}

export interface PrintedRepresentationSlot {
  /** 31, 32 (DOP 250,000 or more), 32<250k, 33, 34, 41, 43, 44, 45, 46, 47. */
  slot: string;
  documentId: string | null;
}

/** The portal's 11 slots (research/certification.md §1, step 5), each with an accepted simulation document. */
export function printedRepresentationSlots(cases: readonly CaseRow[]): PrintedRepresentationSlot[] {
  const simulated = cases.filter((row) => row.step === 4 && row.kind === 'ECF');
  if (simulated.length === 0) return [];
  const slotOf = (row: CaseRow) =>
    row.ecf_type === '32' ? (row.route === 'rfce' ? '32<250k' : '32') : (row.ecf_type ?? '');
  return printedSlots.map((slot) => ({
    slot,
    documentId: simulated.find((row) => slotOf(row) === slot && row.status === 'accepted')?.document_id ?? null,
  }));
}
