import type { FiscalEnvironment } from '../../config.js';
import type { Result } from '../result.js';
import type { Scope } from './scopes.js';

/** Who may call a route; every route declares one in its definition. */
export type RouteAuth =
  { kind: 'public' } | { kind: 'apiKey'; scope: Scope | 'any' } | { kind: 'ops' } | { kind: 'cloud' };

export interface Principal {
  companyId: string;
  keyId: string;
  environment: FiscalEnvironment;
  /** As granted at issue. */
  scopes: Scope[];
  /** Granted plus derived (SPEC §5). */
  effectiveScopes: Set<Scope>;
  companyPermissions: 'current' | 'suspended';
}

/** Implemented by the api-keys module; the HTTP layer only asks it who a raw key belongs to. */
export interface ApiKeyAuthenticator {
  authenticate(rawKey: string): Promise<Result<Principal>>;
}
