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
  /** The bearer token of the embedded sandbox's /sandbox-admin routes (always on when it is embedded). */
  sandboxAdminToken?: string | undefined;
  /** The SMTP server the service e-mails through: SMTP_URL, else the embedded sandbox's mail catcher; undefined:
   * no e-mail. */
  mailUrl: string | undefined;
}

/**
 * The embedded sandbox's admin token: the configured one, else one made once and kept in DATA_DIR (0600), so a
 * newcomer can read the mailbox and scripts can play DGII's certification portal (the demo credentials carry it).
 */
function embeddedAdminToken(config: Config): string {
  if (config.dgii.sandboxAdminToken !== undefined) return config.dgii.sandboxAdminToken;
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
  const { mail } = parts.config;
  if (!parts.embedded || dgii.sandbox !== 'embedded') return { ...dgii, sandbox: undefined, mailUrl: mail.url };
  const adminToken = embeddedAdminToken(parts.config);
  const sandbox = await createSandbox({
    db: parts.db,
    clock: parts.clock,
    log: parts.log,
    schemas: parts.schemas,
    admin: { enabled: true, token: adminToken },
  });
  const url = await sandbox.listen(dgii.sandboxPort, parts.config.host);
  parts.log.info({ url }, 'DGII sandbox listening (embedded); the service uses it as DGII');
  // Without a mail server of its own, the service e-mails the sandbox, which keeps each message for
  // /sandbox-admin/mail; loopback only, whatever HOST says, as nothing else should send to it.
  let mailUrl = mail.url;
  if (mailUrl === undefined) {
    mailUrl = await sandbox.catchMail('127.0.0.1');
    parts.log.info(
      { url: mailUrl, mailbox: `${url}/sandbox-admin/mail` },
      'mail catcher listening (embedded sandbox); the service e-mails through it',
    );
  }
  return { baseUrl: url, fcBaseUrl: url, statusBaseUrl: url, sandbox, sandboxAdminToken: adminToken, mailUrl };
}
