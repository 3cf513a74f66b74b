import type { Cache } from '../../platform/cache/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import { fail, ok, type Result } from '../../platform/result.js';
import { checkTaxpayerId } from '../../fiscal/taxpayer-id.js';
import { importRegistry, type ImportOptions, type ImportReport } from './registry-import.js';
import { findTaxpayer, type TaxpayerRecord } from './taxpayers.repo.js';
import type { TaxpayerStatus, TaxpayerView } from './taxpayers.schema.js';

/** What DGII's directory of electronic issuers says of a number (consultadirectorio; research/dgii-protocol.md). */
export interface DirectoryEntry {
  electronicIssuer: boolean;
  urls?: { reception?: string; approval?: string; authentication?: string };
}

/**
 * Asks DGII's directory; undefined when DGII does not list the number. Throws when DGII cannot be reached.
 * DGII answers only an authenticated taxpayer, so the caller's company (whose token is used) comes along; the
 * answer itself is public and is cached for every company.
 */
export type DirectoryLookup = (rnc: string, companyId: string) => Promise<DirectoryEntry | undefined>;

export interface TaxpayersServiceDeps {
  db: Db;
  clock: Clock;
  cache: Cache;
  /** DGII's directory; absent until the DGII client is wired: the electronic-issuer fields are then null. */
  directory?: DirectoryLookup | undefined;
  /** How long a directory answer is reused (default 6 h; a "not listed" answer for a sixth of that). */
  directoryTtlSeconds?: number;
}

const statusByDgii: Record<string, TaxpayerStatus> = {
  ACTIVO: 'active',
  SUSPENDIDO: 'suspended',
  'DADO DE BAJA': 'deregistered',
  'CESE TEMPORAL': 'temporarily_ceased',
  ANULADO: 'annulled',
  RECHAZADO: 'rejected',
};

const checkDigitRules = {
  rnc: 'RNC check digit (weights 7,9,8,6,5,4,3,2 modulo 11 on the first eight digits)',
  cedula: 'cédula check digit (Luhn over the first ten digits)',
};

/** After DGII's directory failed for a company, how long its lookups answer without asking it. */
const directoryPauseSeconds = 30;

export function createTaxpayersService(deps: TaxpayersServiceDeps) {
  const ttl = deps.directoryTtlSeconds ?? 6 * 3_600;

  /** The directory answer through the cache; undefined when unknown (no directory wired, or DGII failed). */
  async function directoryEntry(rnc: string, companyId: string): Promise<DirectoryEntry | null | undefined> {
    const directory = deps.directory;
    if (directory === undefined) return undefined;
    const key = `taxpayers:directory:${rnc}`;
    const pausedKey = `taxpayers:directory-paused:${companyId}`;
    const [cached, paused] = await Promise.all([deps.cache.get(key), deps.cache.get(pausedKey)]);
    if (cached !== undefined) return JSON.parse(cached) as DirectoryEntry | null;
    if (paused !== undefined) return undefined;
    let entry: DirectoryEntry | undefined;
    try {
      entry = await directory(rnc, companyId);
    } catch {
      // The registry answer stands on its own; DGII being down (or the company having no DGII session) only makes
      // these fields unknown. Nothing is cached for the number, and the company's lookups stop asking DGII for a
      // little while, so a run of lookups neither waits on DGII each time nor hammers it.
      await deps.cache.set(pausedKey, '1', directoryPauseSeconds);
      return undefined;
    }
    await deps.cache.set(
      key,
      JSON.stringify(entry ?? null),
      entry === undefined ? Math.max(1, Math.floor(ttl / 6)) : ttl,
    );
    return entry ?? null;
  }

  function view(record: TaxpayerRecord, directory: DirectoryEntry | null | undefined): TaxpayerView {
    const urls = directory?.urls;
    return {
      rnc: record.tax_id,
      kind: record.tax_id.length === 9 ? 'rnc' : 'cedula',
      legalName: record.legal_name,
      tradeName: record.trade_name,
      economicActivity: record.economic_activity,
      startedOn: record.started_on,
      status: statusByDgii[record.status] ?? 'other',
      dgiiStatus: record.status,
      paymentRegime: record.payment_regime,
      electronicIssuer: directory === undefined ? null : directory !== null && directory.electronicIssuer,
      receiverUrls:
        urls === undefined
          ? null
          : {
              reception: urls.reception ?? null,
              approval: urls.approval ?? null,
              authentication: urls.authentication ?? null,
            },
      registryUpdatedAt: record.imported_at.toISOString(),
    };
  }

  return {
    /** A taxpayer by RNC or cédula: the check digit first, then the registry, then DGII's directory. */
    async lookup(rnc: string, companyId: string): Promise<Result<TaxpayerView>> {
      const problem = checkTaxpayerId(rnc);
      if (problem === 'format') {
        return fail(
          'validation_failed',
          'A taxpayer is looked up by a 9-digit RNC or an 11-digit cédula, digits only.',
          [{ pointer: '/rnc', in: 'params', code: 'format', detail: 'Must be 9 digits (RNC) or 11 digits (cédula).' }],
        );
      }
      // The registry and DGII's directory are asked side by side; the directory only for a well-formed number.
      const [record, listed] = await Promise.all([
        findTaxpayer(deps.db, rnc),
        problem === undefined ? directoryEntry(rnc, companyId) : Promise.resolve(undefined),
      ]);
      if (problem === 'check_digit' && record === undefined) {
        // DGII issued a few numbers that break the rule; they are served when the registry lists them.
        const rule = rnc.length === 9 ? checkDigitRules.rnc : checkDigitRules.cedula;
        return fail('validation_failed', `${rnc} fails the ${rule}.`, [
          {
            pointer: '/rnc',
            in: 'params',
            code: rnc.length === 9 ? 'rnc_check_digit' : 'cedula_check_digit',
            detail: `Fails the ${rule}.`,
          },
        ]);
      }
      if (record === undefined)
        return fail('taxpayer_not_found', `${rnc} is not in DGII's taxpayer registry as last imported.`);
      return ok(view(record, problem === undefined ? listed : await directoryEntry(rnc, companyId)));
    },

    /** Loads DGII's listing from a file or URL (the `ecf taxpayers import` command and the scheduled job). */
    importFrom(location: string, options: ImportOptions = {}): Promise<ImportReport> {
      return importRegistry({ db: deps.db, clock: deps.clock }, location, options);
    },
  };
}

export type TaxpayersService = ReturnType<typeof createTaxpayersService>;
