import { Type } from 'typebox';
import { ListMetaSchema } from '../../platform/http/envelope.js';
import { ListQuery } from '../../platform/http/list-query.js';
import { ref } from '../../platform/http/schema-ref.js';
import { findingKinds } from './artefact-check.js';

const kinds = Object.keys(findingKinds);
const instant = Type.String({ format: 'date-time' });

export const ArchiveFinding = Type.Object(
  {
    id: Type.String({ description: 'afn_…' }),
    kind: Type.String({ description: kinds.join(', ') }),
    severity: Type.Union([Type.Literal('critical'), Type.Literal('warning')]),
    title: Type.String(),
    detail: Type.String(),
    companyId: Type.Union([Type.String(), Type.Null()], { description: 'Null for an orphan whose key names none.' }),
    artefact: Type.Object({
      key: Type.String({ description: 'The object key in the archive.' }),
      kind: Type.Union([Type.String(), Type.Null()], { description: 'signed-xml, received-xml, anecf-xml, …' }),
    }),
    owner: Type.Union([
      Type.Object({
        type: Type.String({ description: 'document, received_document, annulment or certification_case' }),
        id: Type.String(),
      }),
      Type.Null(),
    ]),
    status: Type.Union([Type.Literal('open'), Type.Literal('resolved')]),
    firstSeenAt: instant,
    lastSeenAt: instant,
    resolvedAt: Type.Union([instant, Type.Null()]),
  },
  { $id: 'ArchiveFinding' },
);

const ArchivePass = Type.Object({
  id: Type.String(),
  startedAt: instant,
  completedAt: Type.Union([instant, Type.Null()]),
  artefacts: Type.Integer({ description: 'Artefacts verified.' }),
  bytes: Type.Integer({ description: 'Bytes read.' }),
  storedObjects: Type.Integer({ description: 'Objects the store listed.' }),
  findings: Type.Integer(),
  recordedArtefacts: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Artefacts on record when the pass completed.',
  }),
  coverage: Type.Union([Type.Number(), Type.Null()], { description: 'artefacts / recordedArtefacts, at most 1.' }),
});

export const ArchiveFindings = Type.Object({
  data: Type.Object({
    summary: Type.Object({
      open: Type.Integer(),
      openByKind: Type.Record(Type.String(), Type.Integer()),
      lastCompletePass: Type.Union([ArchivePass, Type.Null()], {
        description: 'The last complete rolling pass over the whole archive.',
      }),
      currentPass: Type.Union([ArchivePass, Type.Null()], { description: 'The rolling pass under way.' }),
    }),
    findings: Type.Array(ref(ArchiveFinding)),
  }),
  meta: ref(ListMetaSchema),
});

export const ListFindingsQuery = ListQuery({
  kind: Type.Optional(Type.Union(kinds.map((kind) => Type.Literal(kind)))),
  status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('resolved')])),
  company: Type.Optional(Type.String({ maxLength: 100, description: 'A company id (cmp_…).' })),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'Only findings first seen at or after.' })),
});

export const archiveSchemas = [ArchiveFinding];
