import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { Clock } from '../../platform/clock.js';
import { assessCertificate, openP12 } from '../../platform/crypto/p12.js';
import { openSecret, sealSecret } from '../../platform/crypto/secret-box.js';
import type { Db } from '../../platform/db/database.js';
import { tablesOf } from '../../platform/db/tables-of.js';
import type { AnyTrx, Trx } from '../../platform/db/transact.js';
import type { Principal } from '../../platform/http/auth.js';
import { fail, ok, type Result } from '../../platform/result.js';
import { newId } from '../../platform/ids.js';
import { RecentReads, recentReadMs } from '../../platform/recent-reads.js';
import { checkTaxpayerId } from '../../fiscal/taxpayer-id.js';
import type { PrintSettings } from '../printing/index.js';
import { brandingChanges, brandingView, toPrintSettings } from './branding.js';
import { capabilities, capabilityScopes } from './capabilities.js';
import * as repo from './companies.repo.js';
import type {
  CertificateInstall,
  CertificateSummary,
  Company,
  CompanyProvision,
  CompanySuspension,
  CompanyUpdate,
  DeliveryInput,
  PermissionsChange,
} from './companies.schema.js';
import type { CompaniesTables } from './tables.js';

export interface Change<T> {
  value: T;
  /** False when the request matched what was already there: applying it again has no effect. */
  changed: boolean;
}

export interface SigningIdentity {
  privateKey: KeyObject;
  certificatePem: string;
}

function certificateSummary(row: repo.CertificateRow): CertificateSummary {
  return {
    id: row.id,
    subject: row.subject,
    issuer: row.issuer,
    serialNumber: row.serial_number,
    notBefore: row.not_before.toISOString(),
    notAfter: row.not_after.toISOString(),
    fingerprintSha256: row.fingerprint_sha256,
  };
}

function deliveryChanges(input: DeliveryInput | undefined): Partial<repo.CompanyRow> {
  if (input === undefined) return {};
  return {
    ...(input.automatic === undefined ? {} : { delivery_automatic: input.automatic }),
    ...(input.senderName === undefined ? {} : { delivery_sender_name: input.senderName }),
    ...(input.replyTo === undefined ? {} : { delivery_reply_to: input.replyTo }),
  };
}

function toCompany(row: repo.CompanyProfileRow, certificate: repo.CertificateRow | undefined): Company {
  return {
    id: row.id,
    rnc: row.rnc,
    legalName: row.legal_name,
    tradeName: row.trade_name,
    address: row.address,
    municipality: row.municipality,
    province: row.province,
    permissions: row.permissions,
    suspendedReason: row.suspended_reason,
    certificationEnabled: row.certification_enabled,
    certificate: certificate === undefined ? null : certificateSummary(certificate),
    branding: brandingView(row),
    delivery: {
      automatic: row.delivery_automatic,
      senderName: row.delivery_sender_name,
      replyTo: row.delivery_reply_to,
    },
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const keyContext = (companyId: string) => `certificate-key:${companyId}`;

/** Enough for the companies an instance signs for at once; the oldest entry goes first. */
const maxCachedIdentities = 1_000;

function sameValue(stored: unknown, given: unknown): boolean {
  // Bytes (the logo) compare by content: JSON would spell a Buffer and PGlite's Uint8Array differently.
  if (stored instanceof Uint8Array || given instanceof Uint8Array)
    return stored instanceof Uint8Array && given instanceof Uint8Array && Buffer.compare(stored, given) === 0;
  return JSON.stringify(stored) === JSON.stringify(given);
}

/** Field-by-field comparison, so re-applying the same change reports `changed: false`. */
function differs(row: repo.CompanyRow, changes: Partial<repo.CompanyRow>): boolean {
  return Object.entries(changes).some(([field, value]) => !sameValue(row[field as keyof repo.CompanyRow], value));
}

export function createCompaniesService(deps: { db: Db<CompaniesTables>; clock: Clock; masterKey: Buffer }) {
  const { db, clock, masterKey } = deps;
  const recentIssuers = new RecentReads<{
    company: repo.CompanyProfileRow;
    certificate: repo.CertificateRow | undefined;
  }>(recentReadMs, (found) => found.company.id);
  // Parsed signing keys by certificate id (a replaced certificate has a new id, so it is never served stale).
  const identities = new Map<string, SigningIdentity>();

  function identityOf(companyId: string, row: repo.CertificateRow): SigningIdentity {
    const cached = identities.get(row.id);
    if (cached !== undefined) return cached;
    const pem = openSecret(masterKey, row.private_key_sealed, keyContext(companyId));
    const identity = { privateKey: createPrivateKey(pem), certificatePem: row.certificate_pem };
    if (identities.size >= maxCachedIdentities) identities.delete(identities.keys().next().value ?? '');
    identities.set(row.id, identity);
    return identity;
  }

  async function applyChanges(
    trx: Trx<CompaniesTables>,
    row: repo.CompanyRow,
    changes: Partial<repo.CompanyRow>,
  ): Promise<Change<repo.CompanyRow>> {
    if (!differs(row, changes)) return { value: row, changed: false };
    return { value: await repo.updateCompany(trx, row.id, { ...changes, updated_at: clock.now() }), changed: true };
  }

  /** The receiver segment to store (lower-case), refused when another company's receiver would answer to it. */
  async function receiverSegmentOf(
    trx: Trx<CompaniesTables>,
    given: string | null | undefined,
    companyId: string | undefined,
    rnc: string,
  ): Promise<Result<{ receiver_segment?: string | null }>> {
    if (given === undefined) return ok({});
    if (given === null) return ok({ receiver_segment: null });
    const segment = given.toLowerCase();
    const refuse = (detail: string) =>
      fail('validation_failed', `receiverSegment ${segment}: ${detail}`, [
        { pointer: '/receiverSegment', in: 'body', code: 'receiver_segment_taken', detail },
      ]);
    if (segment === 'emisorreceptor') return refuse('emisorreceptor is the local test path.');
    if (/^(\d{9}|\d{11})$/.test(segment) && segment !== rnc)
      return refuse("a 9- or 11-digit segment must be the company's own RNC.");
    if (await repo.receiverSegmentTaken(trx, segment, companyId)) return refuse('another company uses it.');
    return ok({ receiver_segment: segment });
  }

  async function lockExisting(trx: Trx<CompaniesTables>, companyId: string): Promise<Result<repo.CompanyRow>> {
    const row = await repo.lockCompanyById(trx, companyId);
    return row === undefined ? fail('company_not_found', `No company ${companyId}.`) : ok(row);
  }

  return {
    /** Creates the company, or brings the one with this RNC up to date: provisioning twice has one effect. */
    async provision(anyTrx: AnyTrx, input: CompanyProvision): Promise<Result<Change<repo.CompanyRow>>> {
      const trx = tablesOf<CompaniesTables>(anyTrx);
      const idProblem = checkTaxpayerId(input.rnc);
      if (idProblem !== undefined) {
        return fail(
          'validation_failed',
          `RNC ${input.rnc} is not valid (${idProblem === 'format' ? 'format' : 'check digit'}).`,
          [
            {
              pointer: '/rnc',
              in: 'body',
              code: idProblem === 'format' ? 'rnc_format' : 'rnc_check_digit',
              detail: 'not a valid RNC or cédula',
            },
          ],
        );
      }
      const fields = {
        legal_name: input.legalName,
        trade_name: input.tradeName ?? null,
        address: input.address ?? null,
        municipality: input.municipality ?? null,
        province: input.province ?? null,
        plan: input.plan,
        capabilities: input.capabilities,
        certification_enabled: input.certificationEnabled ?? false,
      };
      // Decoded and checked before the row is locked: a logo takes some milliseconds to normalise.
      const branding = brandingChanges(input.branding);
      if (!branding.ok) return branding;
      const existing = await repo.lockCompanyByRnc(trx, input.rnc);
      const segment = await receiverSegmentOf(trx, input.receiverSegment, existing?.id, input.rnc);
      if (!segment.ok) return segment;
      if (existing !== undefined)
        return ok(
          await applyChanges(trx, existing, {
            ...fields,
            ...segment.value,
            ...branding.value,
            ...deliveryChanges(input.delivery),
          }),
        );
      const now = clock.now();
      const row = await repo.insertCompany(trx, {
        id: newId('cmp'),
        rnc: input.rnc,
        ...fields,
        ...segment.value,
        ...branding.value,
        ...deliveryChanges(input.delivery),
        permissions: 'current',
        suspended_reason: null,
        created_at: now,
        updated_at: now,
      });
      return ok({ value: row, changed: true });
    },

    async update(anyTrx: AnyTrx, input: CompanyUpdate): Promise<Result<Change<repo.CompanyRow>>> {
      const trx = tablesOf<CompaniesTables>(anyTrx);
      const branding = brandingChanges(input.branding);
      if (!branding.ok) return branding;
      const found = await lockExisting(trx, input.companyId);
      if (!found.ok) return found;
      const changes: Partial<repo.CompanyRow> = {
        ...(input.legalName === undefined ? {} : { legal_name: input.legalName }),
        ...(input.tradeName === undefined ? {} : { trade_name: input.tradeName }),
        ...(input.address === undefined ? {} : { address: input.address }),
        ...(input.municipality === undefined ? {} : { municipality: input.municipality }),
        ...(input.province === undefined ? {} : { province: input.province }),
        ...(input.plan === undefined ? {} : { plan: input.plan }),
        ...(input.capabilities === undefined ? {} : { capabilities: input.capabilities }),
        ...(input.certificationEnabled === undefined ? {} : { certification_enabled: input.certificationEnabled }),
      };
      const segment = await receiverSegmentOf(trx, input.receiverSegment, found.value.id, found.value.rnc);
      if (!segment.ok) return segment;
      return ok(
        await applyChanges(trx, found.value, {
          ...changes,
          ...segment.value,
          ...branding.value,
          ...deliveryChanges(input.delivery),
        }),
      );
    },

    async setPermissions(
      anyTrx: AnyTrx,
      input: PermissionsChange | (CompanySuspension & { permissions: 'suspended' }),
    ): Promise<Result<Change<repo.CompanyRow>>> {
      const trx = tablesOf<CompaniesTables>(anyTrx);
      const found = await lockExisting(trx, input.companyId);
      if (!found.ok) return found;
      const reason = input.permissions === 'suspended' ? (input.reason ?? 'suspended by the provider') : null;
      return ok(await applyChanges(trx, found.value, { permissions: input.permissions, suspended_reason: reason }));
    },

    /** Opens the .p12 once, checks it can sign, and keeps only the sealed key and the public certificate. */
    async installCertificate(anyTrx: AnyTrx, input: CertificateInstall): Promise<Result<Change<CertificateSummary>>> {
      const trx = tablesOf<CompaniesTables>(anyTrx);
      const found = await lockExisting(trx, input.companyId);
      if (!found.ok) return found;
      const opened = openP12(Buffer.from(input.p12Base64, 'base64'), input.password);
      if (!opened.ok) {
        return fail('certificate_unreadable', opened.message, [
          {
            pointer: opened.code === 'p12_wrong_password' ? '/password' : '/p12Base64',
            in: 'body',
            code: opened.code,
            detail: opened.message,
          },
        ]);
      }
      const now = clock.now();
      const findings = assessCertificate(opened.value, now);
      if (findings.length > 0) {
        return fail(
          'certificate_unusable',
          findings.map((finding) => finding.message).join(' '),
          findings.map((finding) => ({
            pointer: '/p12Base64',
            in: 'body',
            code: finding.code,
            detail: finding.message,
          })),
        );
      }
      const certificate = opened.value;
      const active = await repo.findActiveCertificate(trx, input.companyId);
      if (active?.fingerprint_sha256 === certificate.fingerprintSha256)
        return ok({ value: certificateSummary(active), changed: false });
      const row = await repo.replaceActiveCertificate(
        trx,
        {
          id: newId('crt'),
          company_id: input.companyId,
          status: 'active',
          subject: certificate.subject,
          issuer: certificate.issuer,
          serial_number: certificate.serialNumber,
          not_before: certificate.notBefore,
          not_after: certificate.notAfter,
          fingerprint_sha256: certificate.fingerprintSha256,
          certificate_pem: certificate.certificatePem,
          chain_pem: certificate.chainPem,
          private_key_sealed: sealSecret(masterKey, certificate.privateKeyPem, keyContext(input.companyId)),
          installed_at: now,
          replaced_at: null,
        },
        now,
      );
      return ok({ value: certificateSummary(row), changed: true });
    },

    /** Every company this instance serves, by id. */
    ids(): Promise<string[]> {
      return repo.companyIds(db);
    },

    async get(companyId: string): Promise<Company | undefined> {
      const found = await repo.findCompanyWithCertificate(db, companyId);
      return found === undefined ? undefined : toCompany(found.company, found.certificate);
    },

    /**
     * The company and its signing key (undefined when no certificate is installed), read in one query and kept for
     * recentReadMs: documents are issued many per second, and a change applied here is forgotten at once (forget).
     */
    async issuer(companyId: string): Promise<{ company: Company; identity: SigningIdentity | undefined } | undefined> {
      const found = await recentIssuers.read(companyId, () => repo.findCompanyWithCertificate(db, companyId));
      if (found === undefined) return undefined;
      return {
        company: toCompany(found.company, found.certificate),
        identity: found.certificate === undefined ? undefined : identityOf(companyId, found.certificate),
      };
    },

    /** The company changed (profile, permissions, certificate): the next issuer read goes to the database. */
    forget(companyId: string): void {
      recentIssuers.forget(companyId);
    },

    /** The company as its API key sees it: entitlement, access by capability, environment and scopes. */
    async view(principal: Principal) {
      const found = await repo.findCompanyWithCertificate(db, principal.companyId);
      if (found === undefined) throw new Error(`Authenticated company ${principal.companyId} is missing`);
      const company = toCompany(found.company, found.certificate);
      const access = Object.fromEntries(
        capabilities.map((capability) => {
          const held = capabilityScopes[capability].filter((scope) => principal.effectiveScopes.has(scope));
          const entitled = found.company.capabilities.includes(capability);
          return [
            capability,
            { entitled, allowed: entitled && company.permissions === 'current' && held.length > 0, scopes: held },
          ];
        }),
      );
      return {
        company,
        entitlement: { plan: found.company.plan, capabilities: found.company.capabilities },
        access,
        environment: principal.environment,
        scopes: principal.scopes,
        effectiveScopes: [...principal.effectiveScopes].sort(),
      };
    },

    /** The logo, paper and footer note the printed representation uses; read each time (the renderer caches the
     * logo by its sha256). */
    async printSettingsOf(companyId: string): Promise<PrintSettings> {
      const row = await repo.findPrintSettings(db, companyId);
      if (row === undefined) throw new Error(`No company ${companyId} to print for`);
      return toPrintSettings(row);
    },

    /** The company's signing key; undefined when no certificate is installed. The active certificate is read every
     * time (another process may have replaced it); its key is unsealed and parsed once per certificate, which would
     * otherwise cost nearly as much as the signature itself. */
    async signingIdentity(companyId: string): Promise<SigningIdentity | undefined> {
      const row = await repo.findActiveCertificate(db, companyId);
      return row === undefined ? undefined : identityOf(companyId, row);
    },
  };
}

export type CompaniesService = ReturnType<typeof createCompaniesService>;
