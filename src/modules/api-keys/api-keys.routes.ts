import { Type } from 'typebox';
import type { Db } from '../../platform/db/database.js';
import { transact } from '../../platform/db/transact.js';
import { Envelope, envelope, envelopeExample } from '../../platform/http/envelope.js';
import { recordMessageOnce } from '../control-plane/index.js';
import { problem, unwrap } from '../../platform/http/problems.js';
import { defineRoute } from '../../platform/http/route.js';
import { ref } from '../../platform/http/schema-ref.js';
import { ApiKeyMetadata, IssueApiKey, IssuedApiKey } from './api-keys.schema.js';
import type { CompaniesService } from '../companies/index.js';
import type { ApiKeysService } from './api-keys.service.js';
import type { ApiKeysTables } from './tables.js';

const keyExample = {
  keyId: 'key_oamHqLQWRYUfsXCS',
  name: 'ERP producción',
  environment: 'TEST',
  scopes: ['documents:create', 'documents:read', 'documents:send'],
  displayPrefix: 'ecf_test_oamHqL…',
  createdAt: '2026-11-27T14:30:00.000Z',
  expiresAt: null,
};

const CompanyParams = Type.Object({ companyId: Type.String({ minLength: 1, maxLength: 64 }) });
const KeyParams = Type.Object({
  companyId: Type.String({ minLength: 1, maxLength: 64 }),
  keyId: Type.String({ minLength: 1, maxLength: 64 }),
});

function messageId(id: string | undefined): string {
  if (id === undefined) throw new Error('cloud route reached without a verified message id');
  return id;
}

export function apiKeyRoutes(deps: { db: Db<ApiKeysTables>; apiKeys: ApiKeysService; companies: CompaniesService }) {
  const { db, apiKeys, companies } = deps;

  async function requireCompany(companyId: string): Promise<void> {
    if ((await companies.get(companyId)) === undefined) throw problem('company_not_found', `No company ${companyId}.`);
  }

  return [
    defineRoute({
      method: 'POST',
      url: '/internal/cloud/v1/companies/:companyId/api-keys',
      auth: { kind: 'cloud' },
      docs: {
        operationId: 'issueApiKey',
        summary: 'Issue an API key (the full key is shown once)',
        tags: ['Control plane'],
        examples: {
          request: { name: 'ERP producción', scopes: ['documents:create', 'documents:read', 'documents:send'] },
          response: envelopeExample({
            ...keyExample,
            apiKey: 'ecf_test_oamHqLQWRYUfsXCS_lKF4CHObq8jhFL4K7AyRLmAgouDePtjO28Iq80',
          }),
        },
      },
      schema: { params: CompanyParams, body: ref(IssueApiKey), response: { 201: Envelope(ref(IssuedApiKey)) } },
      handler: async (request, reply) => {
        const { companyId } = request.params;
        await requireCompany(companyId);
        const issued = unwrap(
          await transact(db, async (trx) => {
            const recorded = await recordMessageOnce(
              trx,
              messageId(request.signedMessageId),
              'api-key.issue',
              companyId,
            );
            return recorded.ok ? apiKeys.issue(trx, companyId, request.body) : recorded;
          }),
        );
        return reply.code(201).send(envelope(request, issued));
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/internal/cloud/v1/companies/:companyId/api-keys',
      auth: { kind: 'cloud' },
      docs: {
        operationId: 'listApiKeys',
        summary: "List a company's API keys (metadata only)",
        tags: ['Control plane'],
        examples: {
          response: envelopeExample([
            { ...keyExample, status: 'active', revokedAt: null, lastUsedAt: '2026-11-27T15:02:41.000Z' },
          ]),
        },
      },
      schema: { params: CompanyParams, response: { 200: Envelope(Type.Array(ref(ApiKeyMetadata))) } },
      handler: async (request) => {
        await requireCompany(request.params.companyId);
        return envelope(request, await apiKeys.list(request.params.companyId));
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/internal/cloud/v1/companies/:companyId/api-keys/:keyId',
      auth: { kind: 'cloud' },
      docs: { operationId: 'revokeApiKey', summary: 'Revoke an API key', tags: ['Control plane'] },
      schema: {
        params: KeyParams,
        response: { 204: Type.Null({ description: 'Revoked (also when it already was).' }) },
      },
      handler: async (request, reply) => {
        const { companyId, keyId } = request.params;
        // Checked before the transaction, like issuing: `companies.get` reads outside it, and on embedded PGlite
        // (one session) a read outside an open transaction waits for that transaction for ever.
        await requireCompany(companyId);
        unwrap(
          await transact(db, async (trx) => {
            const recorded = await recordMessageOnce(
              trx,
              messageId(request.signedMessageId),
              'api-key.revoke',
              companyId,
            );
            return recorded.ok ? apiKeys.revoke(trx, companyId, keyId) : recorded;
          }),
        );
        apiKeys.forgetKey(keyId);
        return reply.code(204).send(null);
      },
    }),
  ];
}
