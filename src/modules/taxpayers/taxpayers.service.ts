import type { DirectoryEntry } from '../../dgii/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import { fail, ok, type Result } from '../../platform/result.js';
import { checkTaxpayerId } from '../../fiscal/taxpayer-id.js';
import type { Directory } from './directory-cache.js';
import { importRegistry, type ImportOptions, type ImportReport } from './registry-import.js';
import { findTaxpayer, type TaxpayerRecord } from './taxpayers.repo.js';
import type { TaxpayerStatus, TaxpayerView } from './taxpayers.schema.js';
import type { TaxpayersTables } from './tables.js';

export interface TaxpayersServiceDeps {
  db: Db<TaxpayersTables>;
  clock: Clock;
  /** DGII's directory; absent until the DGII client is wired: the electronic-issuer fields are then null. */
  directory?: Directory | undefined;
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

export function createTaxpayersService(deps: TaxpayersServiceDeps) {
  /** The directory's answer; null: not listed; undefined: unknown (no directory wired, or DGII failed). */
  async function directoryEntry(rnc: string, companyId: string): Promise<DirectoryEntry | null | undefined> {
    if (deps.directory === undefined) return undefined;
    const answer = await deps.directory.lookup(rnc, companyId);
    return answer.kind === 'found' ? answer.entry : answer.kind === 'not_found' ? null : undefined;
  }

  function view(record: TaxpayerRecord, directory: DirectoryEntry | null | undefined): TaxpayerView {
    const optional = (url: string) => (url.trim() === '' ? null : url);
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
      electronicIssuer: directory === undefined ? null : directory !== null,
      receiverUrls:
        directory == null
          ? null
          : {
              reception: optional(directory.urlRecepcion),
              approval: optional(directory.urlAceptacion),
              authentication: optional(directory.urlOpcional),
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
