import { Type, type Static } from 'typebox';
import { scopes } from '../../platform/http/scopes.js';

const ScopeName = Type.Enum(scopes);

export const IssueApiKey = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, description: 'What the key is for, e.g. "ERP production".' }),
    scopes: Type.Array(ScopeName, { minItems: 1, uniqueItems: true }),
    expiresAt: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false, $id: 'IssueApiKey' },
);
export type IssueApiKey = Static<typeof IssueApiKey>;

const keyFields = {
  keyId: Type.String(),
  name: Type.String(),
  environment: Type.Union([Type.Literal('TEST'), Type.Literal('CERT'), Type.Literal('PRODUCTION')]),
  scopes: Type.Array(Type.String()),
  displayPrefix: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
};

export const ApiKeyMetadata = Type.Object(
  {
    ...keyFields,
    status: Type.Union([Type.Literal('active'), Type.Literal('revoked'), Type.Literal('expired')]),
    revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { $id: 'ApiKeyMetadata' },
);
export type ApiKeyMetadata = Static<typeof ApiKeyMetadata>;

export const IssuedApiKey = Type.Object(
  { ...keyFields, apiKey: Type.String({ description: 'The full key. Shown this once; only its hash is kept.' }) },
  { $id: 'IssuedApiKey' },
);
export type IssuedApiKey = Static<typeof IssuedApiKey>;

export const apiKeySchemas = [IssueApiKey, ApiKeyMetadata, IssuedApiKey];
