import type { Scope } from '../../platform/http/scopes.js';

/** What a company's plan can entitle it to, and the scopes that exercise each capability. */
export const capabilityScopes = {
  issuing: [
    'documents:create',
    'documents:read',
    'documents:send',
    'sequences:read',
    'sequences:allocate',
    'sequences:manage',
  ],
  receiving: ['received:read', 'documents:send'],
  webhooks: ['webhooks:manage'],
  taxpayers: ['taxpayers:read'],
  certification: ['certification:manage'],
} as const satisfies Record<string, readonly Scope[]>;

export type Capability = keyof typeof capabilityScopes;
export const capabilities = [
  'issuing',
  'receiving',
  'webhooks',
  'taxpayers',
  'certification',
] as const satisfies readonly Capability[];
