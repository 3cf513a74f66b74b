// What the sending routes answer: where a document stands after asking, and the failed fiscal jobs.
import { Type, type Static } from 'typebox';
import { ListQuery } from '../../platform/http/list-query.js';

const statuses = [
  'signed',
  'queued',
  'sending',
  'in_process',
  'accepted',
  'accepted_conditional',
  'rejected',
  'send_failed',
  'not_found',
];

export const DocumentParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const SendAnswer = Type.Object(
  {
    id: Type.String(),
    eNCF: Type.String(),
    status: Type.String({ enum: statuses, description: 'The document state after the request.' }),
    changed: Type.Boolean({
      description:
        'false: the request changed nothing (e.g. enviar on a document already queued, on its way or final).',
    }),
    detail: Type.String(),
    trackId: Type.Union([Type.String(), Type.Null()], { description: "DGII's trackId once reception has given one." }),
  },
  {
    $id: 'SendAnswer',
    examples: [
      {
        id: 'doc_4Z7cQ1',
        eNCF: 'E310000000001',
        status: 'queued',
        changed: true,
        detail: 'queued for DGII (POST enviar)',
        trackId: null,
      },
    ],
  },
);
export type SendAnswer = Static<typeof SendAnswer>;

export const FailedJobView = Type.Object(
  {
    id: Type.String(),
    kind: Type.String({ description: 'document.send' }),
    documentId: Type.Union([Type.String(), Type.Null()]),
    reason: Type.String({ description: 'The last failure, in words.' }),
    attempts: Type.Integer(),
    open: Type.Boolean({ description: 'Open until its document reaches a final state.' }),
    openedAt: Type.String({ format: 'date-time' }),
    closedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    closedBecause: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'FailedJobView' },
);
export type FailedJobView = Static<typeof FailedJobView>;

export const ListFailedJobsQuery = ListQuery({
  open: Type.Optional(Type.Boolean({ description: 'true: only open jobs; false: only closed ones.' })),
});

export const sendingSchemas = [SendAnswer, FailedJobView];
