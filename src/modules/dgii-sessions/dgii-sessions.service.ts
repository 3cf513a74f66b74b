// DGII sessions (SPEC §4.3): the connection test, and the session of a company that signs outside the service —
// it asks for a seed, signs it with its own certificate, and hands it back; DGII's token is kept here, encrypted,
// never shown, and used by the DGII client until it expires. A company with an installed certificate needs none:
// the client authenticates with the certificate itself.
import type { FiscalEnvironment } from '../../config.js';
import type { DgiiClient, DgiiCredentials, ProbeReport } from '../../dgii/index.js';
import type { Clock } from '../../platform/clock.js';
import { openSecret, sealSecret } from '../../platform/crypto/secret-box.js';
import type { Db } from '../../platform/db/database.js';
import { fail, ok, type Result } from '../../platform/result.js';
import type { CompaniesService } from '../companies/index.js';
import * as repo from './dgii-sessions.repo.js';
import type { DgiiSessionsTables } from './tables.js';

export interface DgiiSessionsService {
  testConnection(companyId: string): Promise<ProbeReport>;
  issueSeed(): Promise<Result<{ seedXml: string }>>;
  acceptSignedSeed(companyId: string, signedSeed: Buffer): Promise<Result<{ expiresAt: string }>>;
  /** What the DGII client authenticates a company with: its certificate, else a session it handed in. */
  credentialsOf(companyId: string): Promise<DgiiCredentials | undefined>;
}

export function createDgiiSessionsService(deps: {
  db: Db<DgiiSessionsTables>;
  clock: Clock;
  environment: FiscalEnvironment;
  masterKey: Buffer;
  companies: CompaniesService;
  dgii: DgiiClient;
}): DgiiSessionsService {
  const { db, clock, environment, masterKey, companies, dgii } = deps;
  const context = (companyId: string) => `dgii-session:${companyId}:${environment}`;

  return {
    testConnection: (companyId) => dgii.probe(companyId),

    async issueSeed() {
      const seed = await dgii.seed();
      if (seed.kind !== 'seed')
        return fail(
          'dgii_unavailable',
          `DGII did not give a seed (${seed.reason}: ${seed.detail}); try again shortly.`,
        );
      return ok({ seedXml: seed.xml });
    },

    async acceptSignedSeed(companyId, signedSeed) {
      const exchanged = await dgii.exchangeSignedSeed(signedSeed);
      if (exchanged.kind === 'transient')
        return fail(
          'dgii_unavailable',
          `DGII did not answer (${exchanged.reason}: ${exchanged.detail}); sign a new seed and try again.`,
        );
      if (exchanged.kind === 'unauthorized') {
        const said = exchanged.messages.map((message) => message.valor).join('; ');
        return fail(
          'dgii_session_refused',
          `DGII refused the signed seed (${exchanged.reason})${said === '' ? '' : `: ${said}`}. Sign a fresh seed from GET /dgii/sesion/semilla with a certificate delegated to issue for the company.`,
        );
      }
      await repo.saveSession(db, {
        companyId,
        environment,
        tokenSealed: sealSecret(masterKey, exchanged.token, context(companyId)),
        expiresAt: exchanged.expiresAt,
        at: clock.now(),
      });
      return ok({ expiresAt: exchanged.expiresAt.toISOString() });
    },

    async credentialsOf(companyId) {
      const issuer = await companies.issuer(companyId);
      if (issuer === undefined) return undefined;
      const { company, identity } = issuer;
      if (identity !== undefined) return { kind: 'certificate', rnc: company.rnc, identity };
      const session = await repo.findSession(db, companyId, environment);
      if (session === undefined || session.expires_at <= clock.now()) return undefined;
      return {
        kind: 'session',
        rnc: company.rnc,
        token: openSecret(masterKey, session.token_encrypted, context(companyId)).toString('utf8'),
        expiresAt: session.expires_at,
      };
    },
  };
}
