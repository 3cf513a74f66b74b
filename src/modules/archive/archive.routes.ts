import { envelope } from '../../platform/http/envelope.js';
import { unwrap } from '../../platform/http/problems.js';
import { defineRoute } from '../../platform/http/route.js';
import { ArchiveFindings, ListFindingsQuery } from './archive.schema.js';
import type { ArchiveService } from './archive.service.js';

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
