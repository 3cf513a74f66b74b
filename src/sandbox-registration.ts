// With the DGII sandbox embedded (`ecf start`), DGII's registry knows every company this instance serves, as DGII
// knows every enrolled electronic taxpayer: its certificate delegated, DGII's test ranges and, in the directory
// (consultadirectorio), the receiver routes this instance answers for it. So an e-CF one company here issues to
// another is delivered, through DGII's directory, to the other's receiver here: the whole DGII model in one process.
// It lives beside the composition root (src/app.ts), which hands it to the control plane's companyChanged: the
// modules do not know the sandbox exists, and an instance with an external DGII never builds one.
import type { FiscalEnvironment } from './config.js';
import type { CompaniesService } from './modules/companies/index.js';
import type { Logger } from './platform/observability/logger.js';
import { ensureTestRanges, upsertTaxpayer, type Sandbox } from './sandbox/index.js';

export interface SandboxRegistration {
  /** The instance answers at `baseUrl` (known once it listens): registers every company it serves, and from now on
   * each one the control plane changes. */
  listening(baseUrl: string): Promise<void>;
  /** Registers one company again (idempotent); only once listening. */
  register(companyId: string): Promise<void>;
  /** A control-plane change committed: registers the company once listening (before, `listening` will). Never
   * throws: the change is applied whatever the sandbox says, and the next start registers every company again. */
  companyChanged(companyId: string): Promise<void>;
}

export function createSandboxRegistration(deps: {
  sandbox: Sandbox;
  environment: FiscalEnvironment;
  companies: Pick<CompaniesService, 'ids' | 'get'>;
  /** The receiver module's answer: `{baseUrl}/{env}/{segment}`, or undefined when the company receives nothing. */
  receiverBaseOf: (companyId: string, instanceBaseUrl: string) => Promise<string | undefined>;
  /** Drops the service's cached directory answer for an RNC whose entry was just written. */
  forgetDirectoryEntry: (rnc: string) => Promise<void>;
  log: Logger;
}): SandboxRegistration {
  const { db, clock } = deps.sandbox.context;
  // The embedded sandbox never runs in PRODUCTION (config.ts refuses it).
  const rangesIn = deps.environment === 'CERT' ? 'certecf' : 'testecf';
  let baseUrl: string | undefined;
  // One registration at a time: ensureTestRanges reads, then adds what is missing, so two at once could add twice.
  let last: Promise<void> = Promise.resolve();
  const inTurn = (work: () => Promise<void>): Promise<void> => {
    const next = last.then(work);
    last = next.catch(() => undefined);
    return next;
  };

  async function registerAt(at: string, companyId: string): Promise<void> {
    const company = await deps.companies.get(companyId);
    if (company === undefined) throw new Error(`No company ${companyId} to register with the embedded sandbox.`);
    const receiver = (await deps.receiverBaseOf(companyId, at)) ?? null;
    await upsertTaxpayer(db, {
      rnc: company.rnc,
      name: company.legalName,
      certificateSha256: company.certificate === null ? [] : [company.certificate.fingerprintSha256],
      receptionUrl: receiver,
      approvalUrl: receiver,
      authenticationUrl: receiver,
    });
    await ensureTestRanges(db, company.rnc, rangesIn, clock.now());
    // A lookup before this registration ("not listed"), or the URLs before a change, must not outlive it.
    await deps.forgetDirectoryEntry(company.rnc);
  }

  const registration: SandboxRegistration = {
    async listening(url) {
      baseUrl = url;
      for (const companyId of await deps.companies.ids()) await registration.register(companyId);
    },
    async register(companyId) {
      const at = baseUrl;
      if (at === undefined) throw new Error('The embedded sandbox registers companies once the instance listens.');
      await inTurn(() => registerAt(at, companyId));
    },
    async companyChanged(companyId) {
      if (baseUrl === undefined) return;
      try {
        await registration.register(companyId);
      } catch (error) {
        deps.log.error({ err: error, companyId }, 'the embedded DGII sandbox could not register the company');
      }
    },
  };
  return registration;
}
