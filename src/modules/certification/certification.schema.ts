// Certification (SPEC §2.2, §2.3, §4.8): the set file `iniciar` takes, and how a process, its steps, checklist
// and cases read back.
import { Type, type Static } from 'typebox';
import { confirmationKeys } from '../../fiscal/certification/index.js';

const SetCaseSchema = Type.Object(
  {
    kind: Type.String({ enum: ['ECF', 'RFCE', 'ACECF'] }),
    caseKey: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '^[A-Za-z0-9._-]+$',
      description: 'CasoPrueba: RNCEmisor + eNCF (ACECF: RNCComprador + eNCF).',
    }),
    ecfType: Type.Optional(Type.String({ pattern: '^\\d{2}$' })),
    payload: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          "DGII-shaped JSON, every value text as in the workbook: the e-CF (as POST /documentos takes it, with the set's eNCF and FechaVencimientoSecuencia), the RFCE, or {DetalleAprobacionComercial: {...}}.",
      },
    ),
  },
  { additionalProperties: false },
);

export const SetFile = Type.Object(
  {
    label: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "What the set is (e.g. its workbook's file name); say here when it was corrected by hand.",
    }),
    cases: Type.Array(SetCaseSchema, { minItems: 1, maxItems: 500 }),
  },
  {
    $id: 'CertificationSetFile',
    additionalProperties: false,
    description: "The set file `ecf certification convert` writes from DGII's set workbook (SPEC §2.3).",
  },
);
export type SetFile = Static<typeof SetFile>;

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Message = Type.Object({ codigo: nullable(Type.String()), valor: Type.String() });

export const ChecklistItem = Type.Object({
  step: nullable(Type.Integer()),
  id: Type.String(),
  title: Type.String(),
  status: Type.String({ enum: ['ok', 'pending', 'attention', 'blocked'] }),
  required: Type.Boolean({ description: 'Whether `completar` waits for it.' }),
  detail: Type.String({ description: 'What is done, what blocks, or what the operator must do next.' }),
  links: Type.Array(Type.String()),
});
export type ChecklistItem = Static<typeof ChecklistItem>;

export const CaseView = Type.Object(
  {
    caseKey: Type.String(),
    kind: Type.String({ enum: ['ECF', 'RFCE', 'ACECF'] }),
    ecfType: nullable(Type.String()),
    step: Type.Integer(),
    origin: Type.String({ enum: ['set', 'derived', 'simulation'] }),
    route: Type.String({ enum: ['reception', 'rfce', 'approval'] }),
    status: Type.String({ enum: ['pending', 'sent', 'accepted', 'rejected', 'error'] }),
    waitingFor: nullable(Type.String()),
    documentId: nullable(Type.String()),
    dependsOn: nullable(
      Type.String({ description: 'The e-NCF a note modifies: it is sent only once that case is accepted.' }),
    ),
    estado: nullable(Type.String()),
    codigo: nullable(Type.String()),
    mensajes: Type.Array(Message),
    carriedFromProcessId: nullable(Type.String()),
    sentAt: nullable(Type.String({ format: 'date-time' })),
    verdictAt: nullable(Type.String({ format: 'date-time' })),
  },
  { $id: 'CertificationCase' },
);
export type CaseView = Static<typeof CaseView>;

export const ProcessView = Type.Object(
  {
    id: Type.String(),
    status: Type.String({ enum: ['active', 'failed', 'cancelled', 'completed'] }),
    label: Type.String(),
    environment: Type.String(),
    failure: nullable(Type.Object({}, { additionalProperties: true })),
    cancelReason: nullable(Type.String()),
    previousProcessId: nullable(Type.String()),
    setSha256: Type.String(),
    steps: Type.Array(
      Type.Object({
        number: Type.Integer(),
        name: Type.String(),
        key: nullable(Type.String()),
        mode: Type.String({ enum: ['manual', 'automatic'] }),
        status: Type.String({ enum: ['locked', 'open', 'done', 'failed'] }),
        openedAt: nullable(Type.String({ format: 'date-time' })),
        doneAt: nullable(Type.String({ format: 'date-time' })),
        evidence: Type.Object({}, { additionalProperties: true }),
      }),
    ),
    cases: Type.Object({
      total: Type.Integer(),
      pending: Type.Integer(),
      sent: Type.Integer(),
      accepted: Type.Integer(),
      rejected: Type.Integer(),
      error: Type.Integer(),
    }),
    confirmations: Type.Array(
      Type.Object({
        step: Type.Integer(),
        key: Type.String(),
        note: nullable(Type.String()),
        apiKeyId: nullable(Type.String()),
        correlationId: nullable(Type.String()),
        carriedFrom: nullable(Type.String()),
        confirmedAt: Type.String({ format: 'date-time' }),
      }),
    ),
    checklist: Type.Array(ChecklistItem),
    timeline: Type.Array(
      Type.Object({
        at: Type.String({ format: 'date-time' }),
        subject: Type.String(),
        status: Type.String(),
        cause: Type.String(),
      }),
    ),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    endedAt: nullable(Type.String({ format: 'date-time' })),
  },
  { $id: 'CertificationProcess' },
);
export type ProcessView = Static<typeof ProcessView>;

export const RunAnswer = Type.Object(
  {
    processId: Type.String(),
    queued: Type.Array(Type.Object({ caseKey: Type.String(), kind: Type.String() }), {
      description: 'The cases this call handed to the lane, in the order they go.',
    }),
    lane: Type.Array(
      Type.Object({
        caseKey: Type.String(),
        kind: Type.String(),
        status: Type.String(),
        waitingFor: nullable(
          Type.String({
            description:
              'Why it is not sent yet: dgii_verdict (it is at DGII), reference_not_accepted (a note before its invoice), step_2_not_done, ...; null: next.',
          }),
        ),
      }),
      { description: 'Every case in the lane: one at a time goes to DGII, the next once DGII has judged it.' },
    ),
    remaining: Type.Integer({ description: 'Pending cases not handed in yet: call again.' }),
  },
  { $id: 'CertificationRun' },
);
export type RunAnswer = Static<typeof RunAnswer>;

export const RunQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10 })) },
  { additionalProperties: false },
);

export const ProcessParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export const StepParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  key: Type.String({ minLength: 1, maxLength: 64, description: `One of ${confirmationKeys.join(', ')}.` }),
});
export const CasesQuery = Type.Object(
  { status: Type.Optional(Type.String({ enum: ['pending', 'sent', 'accepted', 'rejected', 'error'] })) },
  { additionalProperties: false },
);
export const ConfirmBody = Type.Union([
  Type.Object({ note: Type.Optional(Type.String({ maxLength: 2000 })) }, { additionalProperties: false }),
  Type.Null(),
]);
export const CancelBody = Type.Object(
  { reason: Type.String({ minLength: 1, maxLength: 2000 }) },
  { additionalProperties: false },
);

export const certificationSchemas = [SetFile, CaseView, ProcessView, RunAnswer];
