// The sandbox embedded in `ecf start`: run beside the service, on its database, and used by it as DGII.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { Db } from '../platform/db/database.js';
import { createSandbox, type Sandbox, type SandboxOptions } from './sandbox.js';

/** The DGII the service talks to: the configured URLs, or the embedded sandbox's. */
export interface DgiiTarget {
  baseUrl: string;
  fcBaseUrl: string;
  statusBaseUrl: string;
  /** Present when the sandbox runs in this process. */
  sandbox: Sandbox | undefined;
  /** The bearer token of the embedded sandbox's /sandbox-admin routes, when they are on. */
  sandboxAdminToken?: string | undefined;
}

/**
 * The embedded sandbox's admin token: the configured one, else in CERT one made once and kept in DATA_DIR (0600), so
 * scripts can play DGII's certification portal (the demo credentials carry it). TEST keeps them off unless configured.
 */
function embeddedAdminToken(config: Config): string | undefined {
  if (config.dgii.sandboxAdminToken !== undefined || config.fiscalEnv !== 'CERT') return config.dgii.sandboxAdminToken;
  const path = join(config.dataDir, 'sandbox-admin-token');
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  const token = randomBytes(24).toString('base64url');
  mkdirSync(config.dataDir, { recursive: true });
  writeFileSync(path, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return token;
}

/**
 * The DGII the service uses: the configured URLs, or the sandbox run beside the service (on its database) when
 * `ecf start` asks for it and the configuration says `embedded`.
 */
export async function dgiiTarget(
  parts: Pick<SandboxOptions<unknown>, 'clock' | 'log' | 'schemas'> & { config: Config; embedded: boolean; db: Db },
): Promise<DgiiTarget> {
  const { dgii } = parts.config;
  if (!parts.embedded || dgii.sandbox !== 'embedded') return { ...dgii, sandbox: undefined };
  const adminToken = embeddedAdminToken(parts.config);
  const sandbox = await createSandbox({
    db: parts.db,
    clock: parts.clock,
    log: parts.log,
    schemas: parts.schemas,
    admin: { enabled: adminToken !== undefined, token: adminToken },
  });
  const url = await sandbox.listen(dgii.sandboxPort, parts.config.host);
  parts.log.info({ url }, 'DGII sandbox listening (embedded); the service uses it as DGII');
  return { baseUrl: url, fcBaseUrl: url, statusBaseUrl: url, sandbox, sandboxAdminToken: adminToken };
}
