// Registering taxpayers, their delegated certificates and their authorised ranges: what DGII's registry holds and
// what the admin routes (and the embedded demo) set up.
import type { SandboxDb, SandboxEnvironment } from './schema.js';
import { forgetState, remembered } from './state-cache.js';

export interface TaxpayerInput {
  rnc: string;
  name: string;
  electronic?: boolean;
  active?: boolean;
  acceptAnyCertificate?: boolean;
  /** SHA-256 fingerprints (hex) of certificates delegated to act for it. */
  certificateSha256?: readonly string[];
  receptionUrl?: string | null;
  approvalUrl?: string | null;
  authenticationUrl?: string | null;
}

export interface RangeInput {
  environment: SandboxEnvironment;
  type: string;
  firstSequence: number;
  lastSequence: number;
  /** `yyyy-mm-dd`; null or absent: never expires. */
  expiresOn?: string | null;
}

/** Creates or replaces a taxpayer's registry entry; delegations are added, never removed here. */
export async function upsertTaxpayer(db: SandboxDb, input: TaxpayerInput): Promise<void> {
  const values = {
    rnc: input.rnc,
    name: input.name,
    electronic: input.electronic ?? true,
    active: input.active ?? true,
    accept_any_certificate: input.acceptAnyCertificate ?? false,
    reception_url: input.receptionUrl ?? null,
    approval_url: input.approvalUrl ?? null,
    authentication_url: input.authenticationUrl ?? null,
  };
  await db
    .insertInto('sandbox_taxpayers')
    .values(values)
    .onConflict((conflict) => conflict.column('rnc').doUpdateSet({ ...values }))
    .execute();
  for (const fingerprint of input.certificateSha256 ?? []) {
    await db
      .insertInto('sandbox_delegations')
      .values({ rnc: input.rnc, certificate_sha256: fingerprint.toLowerCase() })
      .onConflict((conflict) => conflict.columns(['rnc', 'certificate_sha256']).doNothing())
      .execute();
  }
  forgetState(db);
}

/** What every document's checks need of a taxpayer (remembered: state-cache.ts); undefined when not registered. */
export function taxpayerStanding(
  db: SandboxDb,
  rnc: string,
): Promise<{ active: boolean; electronic: boolean; accept_any_certificate: boolean } | undefined> {
  return remembered(db, `taxpayer:${rnc}`, () =>
    db
      .selectFrom('sandbox_taxpayers')
      .select(['active', 'electronic', 'accept_any_certificate'])
      .where('rnc', '=', rnc)
      .executeTakeFirst(),
  );
}

/** Whether the certificate is delegated to act for the taxpayer (remembered: state-cache.ts). */
export function hasDelegation(db: SandboxDb, rnc: string, certificateSha256: string): Promise<boolean> {
  return remembered(db, `delegation:${rnc}:${certificateSha256}`, async () => {
    const delegation = await db
      .selectFrom('sandbox_delegations')
      .select('rnc')
      .where('rnc', '=', rnc)
      .where('certificate_sha256', '=', certificateSha256)
      .executeTakeFirst();
    return delegation !== undefined;
  });
}

export async function addRange(db: SandboxDb, rnc: string, range: RangeInput): Promise<void> {
  await db
    .insertInto('sandbox_ranges')
    .values({
      environment: range.environment,
      rnc,
      type: range.type,
      first_sequence: range.firstSequence,
      last_sequence: range.lastSequence,
      expires_on: range.expiresOn ?? null,
    })
    .execute();
  forgetState(db);
}

/**
 * The range that authorises an e-NCF sequence number for a taxpayer and type, if any (expired ones included). The
 * taxpayer's ranges of that type are remembered (state-cache.ts), in the order the first match must come from.
 */
export async function rangeFor(
  db: SandboxDb,
  environment: SandboxEnvironment,
  rnc: string,
  type: string,
  sequence: number,
) {
  const ranges = await remembered(db, `ranges:${environment}:${rnc}:${type}`, () =>
    db
      .selectFrom('sandbox_ranges')
      .select(['id', 'first_sequence', 'last_sequence', 'expires_on'])
      .where('environment', '=', environment)
      .where('rnc', '=', rnc)
      .where('type', '=', type)
      // PostgreSQL's descending order puts the ranges that never expire (null) first.
      .orderBy('expires_on', 'desc')
      .orderBy('id')
      .execute(),
  );
  return ranges.find((range) => range.first_sequence <= sequence && range.last_sequence >= sequence);
}

const ecfTypeCodes = ['31', '32', '33', '34', '41', '43', '44', '45', '46', '47'] as const;

/**
 * Gives a taxpayer DGII's pre-certification ranges for every type it has none of: 1 to 10,000,000 (1 to
 * 50,000,000 for type 32), valid until 31 December of the following year, types 32 and 34 without expiry
 * (research/dgii-protocol.md §1.3, §9.1). For the embedded demo and quick trials.
 */
export async function ensureTestRanges(
  db: SandboxDb,
  rnc: string,
  environment: SandboxEnvironment,
  now: Date,
): Promise<void> {
  const existing = await db
    .selectFrom('sandbox_ranges')
    .select('type')
    .distinct()
    .where('rnc', '=', rnc)
    .where('environment', '=', environment)
    .execute();
  const covered = new Set(existing.map((row) => row.type));
  const nextYear = new Date(now.getTime() - 4 * 3_600_000).getUTCFullYear() + 1;
  for (const type of ecfTypeCodes) {
    if (covered.has(type)) continue;
    await addRange(db, rnc, {
      environment,
      type,
      firstSequence: 1,
      lastSequence: type === '32' ? 50_000_000 : 10_000_000,
      expiresOn: type === '32' || type === '34' ? null : `${String(nextYear)}-12-31`,
    });
  }
}
