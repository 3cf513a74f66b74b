// The DGII sandbox: an emulator of DGII's e-CF web services (TesteCF, CerteCF, eCF) and of a counterpart taxpayer,
// as its own Fastify app. It validates what it receives with fiscal/ (XSD, signature, fiscal rules) and keeps its
// state in its own tables, so it survives restarts. Used by the tests, by `ecf start` as the DGII the service
// talks to, and standalone (`ecf sandbox`).
import multipart from '@fastify/multipart';
import Fastify from 'fastify';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { SchemaSet } from '../fiscal/xsd/index.js';
import type { Clock } from '../platform/clock.js';
import { xsdInstallHint } from '../platform/xsd/xsd-dir.js';
import { adminRoutes } from './admin/admin-routes.js';
import type { MailCatcher } from './mail/mail-catcher.js';
import { loadCounterpartIdentity } from './counterpart/identity.js';
import type { SandboxApp, SandboxContext } from './http/context.js';
import { installFaults } from './http/faults.js';
import { maxXmlUploadBytes } from './http/xml-upload.js';
import { sandboxRouteGroups } from './routes.js';
import { migrateSandbox } from './state/migrations.js';
import type { SandboxDatabase } from './state/schema.js';

export interface SandboxOptions<Tables> {
  /** The database to keep state in: the service's own (embedded) or the sandbox's (standalone). */
  db: Kysely<Tables>;
  clock: Clock;
  log: Logger;
  schemas: SchemaSet | undefined;
  /** The control routes under /sandbox-admin: off unless enabled; with a token, it is required. */
  admin: { enabled: boolean; token?: string | undefined };
  fetch?: typeof fetch;
  random?: () => number;
}

export interface Sandbox {
  app: SandboxApp;
  context: SandboxContext;
  /** Starts listening; resolves to the base URL (e.g. `http://127.0.0.1:4010`). */
  listen(port: number, host: string): Promise<string>;
  /**
   * Starts the mail catcher, an SMTP server on a free port of `host` that keeps what it accepts for
   * /sandbox-admin/mail; resolves to its URL (e.g. `smtp://127.0.0.1:40125`). close() stops it.
   */
  catchMail(host: string): Promise<string>;
  close(): Promise<void>;
}

export async function createSandbox<Tables>(options: SandboxOptions<Tables>): Promise<Sandbox> {
  await migrateSandbox(options.db as Kysely<unknown>);
  // The same connection, seen through the sandbox's tables only.
  const db = options.db as unknown as Kysely<SandboxDatabase>;
  const context: SandboxContext = {
    db,
    clock: options.clock,
    log: options.log.child({ component: 'dgii-sandbox' }),
    schemas: options.schemas,
    counterpart: await loadCounterpartIdentity(db, options.clock),
    fetch: options.fetch ?? fetch,
    random: options.random ?? Math.random,
  };
  if (options.schemas === undefined)
    context.log.warn(
      `DGII sandbox: no DGII XSDs found; documents are checked against the e-CF model only; ${xsdInstallHint}`,
    );

  // DGII's routes are case-insensitive (research/dgii-protocol.md §1.1).
  const app: SandboxApp = Fastify({
    loggerInstance: context.log,
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true },
    bodyLimit: maxXmlUploadBytes + 64 * 1024,
  });
  await app.register(multipart, { limits: { fileSize: maxXmlUploadBytes } });
  installFaults(app, context);
  for (const register of sandboxRouteGroups) register(app, context);
  if (options.admin.enabled) adminRoutes(app, context, options.admin.token);

  let catcher: MailCatcher | undefined;
  return {
    app,
    context,
    async listen(port, host) {
      await app.listen({ port, host });
      const address = app.server.address();
      const actualPort = typeof address === 'object' && address !== null ? address.port : port;
      return `http://${host.includes(':') ? `[${host}]` : host}:${String(actualPort)}`;
    },
    async catchMail(host) {
      // Loaded when asked for: smtp-server and mailparser are slow to load, and most sandboxes catch no mail.
      catcher ??= await (await import('./mail/mail-catcher.js')).startMailCatcher(context, host);
      return catcher.url;
    },
    async close() {
      await catcher?.close();
      await app.close();
    },
  };
}
