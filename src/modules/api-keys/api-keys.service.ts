import { createHash, timingSafeEqual } from 'node:crypto';
import type { FiscalEnvironment } from '../../config.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import type { Trx } from '../../platform/db/transact.js';
import type { ApiKeyAuthenticator, Principal } from '../../platform/http/auth.js';
import { fail, ok, type Result } from '../../platform/result.js';
import { RecentReads, recentReadMs } from '../../platform/recent-reads.js';
import { effectiveScopes, isScope } from '../../platform/http/scopes.js';
import { displayPrefix, generateApiKey, keyIdFor, parseApiKey } from './api-key-format.js';
import * as repo from './api-keys.repo.js';
import type { ApiKeyMetadata, IssueApiKey, IssuedApiKey } from './api-keys.schema.js';
import type { ApiKeysTables } from './tables.js';

const touchIntervalMs = 60_000;

function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

function statusOf(row: repo.ApiKeyRow, now: Date): ApiKeyMetadata['status'] {
  if (row.revoked_at !== null) return 'revoked';
  if (row.expires_at !== null && row.expires_at <= now) return 'expired';
  return 'active';
}

function metadata(row: repo.ApiKeyRow, now: Date): ApiKeyMetadata {
  return {
    keyId: row.id,
    name: row.name,
    environment: row.environment,
    scopes: row.scopes,
    displayPrefix: row.display_prefix,
    status: statusOf(row, now),
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
  };
}

export function createApiKeysService(deps: { db: Db<ApiKeysTables>; clock: Clock; environment: FiscalEnvironment }) {
  const { db, clock, environment } = deps;
  const recentKeys = new RecentReads<NonNullable<Awaited<ReturnType<typeof repo.findKeyWithCompany>>>>(
    recentReadMs,
    (row) => row.company_id,
  );

  const authenticator: ApiKeyAuthenticator = {
    async authenticate(rawKey): Promise<Result<Principal>> {
      const parsed = parseApiKey(rawKey);
      if (parsed === undefined)
        return fail('api_key_malformed', 'The x-api-key header does not hold a well-formed ecf_ key.');
      if (parsed.environment !== environment) {
        return fail(
          'api_key_wrong_environment',
          `This is a ${parsed.environment} key; this instance serves ${environment}.`,
        );
      }
      const keyId = keyIdFor(parsed.lookup);
      const row = await recentKeys.read(keyId, () => repo.findKeyWithCompany(db, keyId));
      if (row === undefined || !sameHash(row.key_hash, hashKey(rawKey)))
        return fail('api_key_unknown', 'The API key is not recognised.');
      const now = clock.now();
      if (row.revoked_at !== null)
        return fail('api_key_revoked', `The API key ${row.id} was revoked at ${row.revoked_at.toISOString()}.`);
      if (row.expires_at !== null && row.expires_at <= now)
        return fail('api_key_expired', `The API key ${row.id} expired at ${row.expires_at.toISOString()}.`);
      if (row.last_used_at === null || now.getTime() - row.last_used_at.getTime() > touchIntervalMs) {
        await repo.touchKey(db, row.id, now);
        row.last_used_at = now;
      }
      const scopes = row.scopes.filter(isScope);
      return ok({
        companyId: row.company_id,
        keyId: row.id,
        environment: row.environment,
        scopes,
        effectiveScopes: effectiveScopes(scopes),
        companyPermissions: row.permissions,
      });
    },
  };

  return {
    authenticator,

    /** The company's permissions changed: its keys are read again on their next use. */
    forgetCompany(companyId: string): void {
      recentKeys.forgetGroup(companyId);
    },

    /** Once a revocation has committed: the key is read again (and refused) on its next use. */
    forgetKey(keyId: string): void {
      recentKeys.forget(keyId);
    },

    /** Issues a key of this instance's environment; the full key is in the result and nowhere else. */
    async issue(trx: Trx<ApiKeysTables>, companyId: string, input: IssueApiKey): Promise<Result<IssuedApiKey>> {
      const now = clock.now();
      const expiresAt = input.expiresAt === undefined ? null : new Date(input.expiresAt);
      if (expiresAt !== null && expiresAt <= now) {
        return fail('validation_failed', 'expiresAt must be in the future.', [
          { pointer: '/expiresAt', in: 'body', code: 'in_past', detail: 'must be in the future' },
        ]);
      }
      const { key, lookup } = generateApiKey(environment);
      const row = await repo.insertApiKey(trx, {
        id: keyIdFor(lookup),
        company_id: companyId,
        environment,
        name: input.name,
        scopes: [...input.scopes],
        key_hash: hashKey(key),
        display_prefix: displayPrefix(key),
        created_at: now,
        expires_at: expiresAt,
        revoked_at: null,
        last_used_at: null,
      });
      const { status: _status, revokedAt: _revokedAt, lastUsedAt: _lastUsedAt, ...fields } = metadata(row, now);
      return ok({ ...fields, apiKey: key });
    },

    async list(companyId: string): Promise<ApiKeyMetadata[]> {
      const now = clock.now();
      return (await repo.listCompanyKeys(db, companyId)).map((row) => metadata(row, now));
    },

    /** Revoking a revoked key changes nothing and still succeeds. */
    async revoke(trx: Trx<ApiKeysTables>, companyId: string, keyId: string): Promise<Result<void>> {
      const row = await repo.revokeKey(trx, companyId, keyId, clock.now());
      return row === undefined
        ? fail('api_key_not_found', `No API key ${keyId} for company ${companyId}.`)
        : ok(undefined);
    },
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
