// Per company: its certificate's validity and days to expiry, its e-NCF ranges' numbers left per type and their
// expiry, and its receiver answering DGII's first call (the seed) at the URL registered with DGII, from here.
import type { Config } from '../config.js';
import { isoDateOf } from '../fiscal/dates.js';
import type { CompaniesService } from '../modules/companies/index.js';
import { receiverBaseOf } from '../modules/receiver/index.js';
import { rangesOfCompany } from '../modules/sequences/index.js';
import { certificateWarningDays } from '../modules/webhooks/index.js';
import type { Db } from '../platform/db/database.js';
import { grouped, reasonOf, worst, type CheckResult } from './check.js';
import type { CompanyRef } from './master-key-check.js';

const dayMs = 86_400_000;

/** How long the doctor waits for a receiver's seed: it answers at once when it is up. */
const receiverWaitMs = 10_000;

export async function checkCertificate(
  company: CompanyRef,
  companies: CompaniesService,
  now: Date,
): Promise<CheckResult> {
  const result = (status: CheckResult['status'], line: string): CheckResult => ({
    check: 'certificate',
    company: company.rnc,
    status,
    line,
  });
  const certificate = (await companies.get(company.id))?.certificate ?? null;
  if (certificate === null)
    return result(
      'warning',
      'no certificate installed: it cannot sign here (documents, ARECF, ACECF); install its .p12 through the control plane',
    );
  const notBefore = new Date(certificate.notBefore);
  const notAfter = new Date(certificate.notAfter);
  if (now < notBefore) return result('failure', `its certificate is valid only from ${certificate.notBefore}`);
  if (now > notAfter)
    return result('failure', `its certificate expired on ${certificate.notAfter}: install its renewal`);
  const daysLeft = Math.ceil((notAfter.getTime() - now.getTime()) / dayMs);
  if (daysLeft <= certificateWarningDays)
    return result(
      'warning',
      `its certificate expires in ${daysLeft} day(s), on ${certificate.notAfter}: install its renewal before then`,
    );
  return result('ok', `its certificate is valid until ${certificate.notAfter} (${grouped(daysLeft)} days)`);
}

/** `dd-MM-yyyy`, as DGII writes FechaVencimientoSecuencia. */
const dgiiDay = (iso: string) => iso.split('-').reverse().join('-');

export async function checkRanges(
  company: CompanyRef,
  db: Db,
  config: Pick<Config, 'fiscalEnv' | 'sequenceWarnings'>,
  now: Date,
): Promise<CheckResult> {
  const today = isoDateOf(now);
  const ranges = await rangesOfCompany(db, company.id, config.fiscalEnv);
  const check = { check: 'ranges', company: company.rnc };
  if (ranges.length === 0)
    return {
      ...check,
      status: 'warning',
      line: `no e-NCF ranges in ${config.fiscalEnv}: it cannot issue; register the ranges DGII authorised`,
    };
  const { lowStock, expiringDays } = config.sequenceWarnings;
  const horizon = isoDateOf(new Date(now.getTime() + expiringDays * dayMs));
  const types = [...new Set(ranges.map((range) => range.ecf_type))].sort();
  const perType = types.map((type) => {
    const usable = ranges.filter(
      (range) =>
        range.ecf_type === type &&
        range.next_number <= range.last_number &&
        (range.expires_on === null || range.expires_on >= today),
    );
    const left = usable.reduce((sum, range) => sum + (range.last_number - range.next_number + 1), 0);
    const expiries = usable.flatMap((range) => (range.expires_on === null ? [] : [range.expires_on])).sort();
    const until = expiries[0];
    const status: CheckResult['status'] =
      left === 0 ? 'failure' : left <= lowStock || (until !== undefined && until <= horizon) ? 'warning' : 'ok';
    const text =
      left === 0
        ? `E${type} none left (used up or expired)`
        : `E${type} ${grouped(left)} left${until === undefined ? '' : ` until ${dgiiDay(until)}`}`;
    return { status, text };
  });
  const status = worst(perType.map((type) => type.status));
  const advice =
    status === 'ok'
      ? ''
      : '; register the new ranges DGII authorises before these run out (SEQUENCE_LOW_STOCK, SEQUENCE_EXPIRING_DAYS)';
  return { ...check, status, line: `${perType.map((type) => type.text).join(', ')}${advice}` };
}

/** Undefined for a company that receives nothing here. */
export async function checkReceiver(
  company: CompanyRef,
  db: Db,
  config: Pick<Config, 'fiscalEnv' | 'publicBaseUrl'>,
  progress: (what: string) => void,
): Promise<CheckResult | undefined> {
  const result = (status: CheckResult['status'], line: string): CheckResult => ({
    check: 'receiver',
    company: company.rnc,
    status,
    line,
  });
  if (config.publicBaseUrl === undefined) {
    const base = await receiverBaseOf(db, company.id, 'PUBLIC_BASE_URL', config.fiscalEnv);
    if (base === undefined) return undefined;
    return result(
      config.fiscalEnv === 'PRODUCTION' ? 'failure' : 'warning',
      `PUBLIC_BASE_URL is unset, so its receiver (${base}/fe/…) cannot be called to check it: set PUBLIC_BASE_URL to the base of the URLs registered with DGII`,
    );
  }
  const base = await receiverBaseOf(db, company.id, config.publicBaseUrl, config.fiscalEnv);
  if (base === undefined) return undefined;
  const url = `${base}/fe/autenticacion/api/semilla`;
  progress(`calling the receiver of ${company.rnc} at ${url}`);
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(receiverWaitMs) });
    const body = await response.text();
    if (response.status === 200 && body.includes('<SemillaModel'))
      return result('ok', `its receiver answers a seed at ${url}`);
    return result(
      'failure',
      `its receiver at ${url} answered HTTP ${response.status} without a seed: DGII and issuers cannot deliver to it; check PUBLIC_BASE_URL and what stands in front of the service`,
    );
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    return result(
      'failure',
      `its receiver at ${url} does not answer (${reasonOf(cause ?? error)}): DGII and issuers cannot deliver to it; check PUBLIC_BASE_URL, DNS, TLS and what stands in front of the service`,
    );
  }
}
