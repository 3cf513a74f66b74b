import { envelope, listExample } from '../../platform/http/envelope.js';
import { unwrap } from '../../platform/http/problems.js';
import { defineRoute } from '../../platform/http/route.js';
import { ArchiveFindings, ListFindingsQuery } from './archive.schema.js';
import type { ArchiveService } from './archive.service.js';

const findingsExample = {
  summary: {
    open: 1,
    openByKind: { blob_missing: 1 },
    lastCompletePass: {
      id: 'apa_3nV8qL2xT7mR1kW9bZ4c',
      startedAt: '2026-11-27T04:00:00.000Z',
      completedAt: '2026-11-27T07:10:00.000Z',
      artefacts: 48210,
      bytes: 193400112,
      storedObjects: 48211,
      findings: 1,
      recordedArtefacts: 48211,
      coverage: 1,
    },
    currentPass: null,
  },
  findings: [
    {
      id: 'afd_Q2m8TzX1bV7nK4pR9sLc',
      kind: 'blob_missing',
      severity: 'critical',
      title: 'An archived artefact is missing',
      detail: 'signed-xml v1 of doc_ebhJdvnWMDXrZRIjCpH0 (E310000000001) is not in the blob store.',
      companyId: 'cmp_HX4G8DItIuGlff211f0n',
      artefact: { key: 'cmp_HX4G8DItIuGlff211f0n/documents/doc_ebhJdvnWMDXrZRIjCpH0/signed-xml/1', kind: 'signed-xml' },
      owner: { type: 'document', id: 'doc_ebhJdvnWMDXrZRIjCpH0' },
      status: 'open',
      firstSeenAt: '2026-11-27T07:10:00.000Z',
      lastSeenAt: '2026-11-27T07:10:00.000Z',
      resolvedAt: null,
    },
  ],
};

export function archiveRoutes(archive: ArchiveService) {
  return [
    defineRoute({
      method: 'GET',
      url: '/internal/archive/findings',
      auth: { kind: 'ops' },
      docs: {
        operationId: 'archiveFindings',
        summary: 'Integrity findings of the fiscal archive, with a summary of the checks',
        description:
          'What the archive verifier found: blobs missing or altered, signatures that no longer verify, records the XML contradicts, short Object Lock retention, orphan blobs. A finding resolves when a later check of its artefact passes. Newest first.',
        tags: ['Operations'],
        examples: { response: listExample(findingsExample) },
      },
      schema: { querystring: ListFindingsQuery, response: { 200: ArchiveFindings } },
      handler: async (request) => {
        const { company, since, ...query } = request.query;
        const page = unwrap(
          await archive.listFindings({
            ...query,
            ...(company === undefined ? {} : { companyId: company }),
            ...(since === undefined ? {} : { since: new Date(since) }),
          }),
        );
        const { data, meta } = envelope(request, { summary: await archive.summary(), findings: page.items });
        return { data, meta: { ...meta, nextCursor: page.nextCursor } };
      },
    }),
  ];
}
