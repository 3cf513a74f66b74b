// What a PRODUCTION instance refuses to start on (issue 46; SPEC §1: immutable-retention storage, production
// secrets), each rule once: `ecf start|serve|worker|scheduler` refuses or warns with these lines before it opens
// anything, and `ecf doctor` shows the same lines among its checks. TEST and CERT keep the embedded defaults, so
// every rule holds nothing against them. The rules read the configuration only (and whether an XSD set is
// installed); what the bucket itself holds is the doctor's storage check.
import type { Config, ProductionOverride } from '../config.js';
import { xsdInstallHint } from '../platform/xsd/xsd-dir.js';
import { grouped, type CheckResult } from './check.js';

/**
 * Ten years in days, leap days included (a ten-year span holds up to three): the issuer keeps every e-CF's XML ten
 * years (research/ecf-format.md, type 32), so its archive must hold that long.
 */
export const tenYearsDays = 3_653;

export interface Objection {
  /** The setting the line names (the one to change). */
  setting: string;
  /** A refusal stops the start unless overridden; a warning is logged. */
  severity: 'refusal' | 'warning';
  /** One line: what is wrong and what to do. */
  line: string;
  /** The PRODUCTION_ALLOW name that overrides this refusal, when an operator can have a real reason for it. */
  override?: ProductionOverride;
  /** PRODUCTION_ALLOW names it: the start goes on, with the line logged as a warning. */
  overridden: boolean;
}

type ProductionConfig = Pick<
  Config,
  'fiscalEnv' | 'databaseUrl' | 'storage' | 'opsToken' | 'productionAllow' | 'xsdDir' | 'dataDir'
>;

function objection(
  config: ProductionConfig,
  setting: string,
  line: string,
  options: { severity?: Objection['severity']; override?: ProductionOverride } = {},
): Objection {
  const { severity = 'refusal', override } = options;
  return {
    setting,
    severity,
    line,
    ...(override === undefined ? {} : { override }),
    overridden: override !== undefined && config.productionAllow.includes(override),
  };
}

/** PGlite: one process, its data on this host's disk; no override (PostgreSQL is the production database). */
export function databaseObjection(config: ProductionConfig): Objection | undefined {
  if (config.fiscalEnv !== 'PRODUCTION' || config.databaseUrl !== undefined) return undefined;
  return objection(
    config,
    'DATABASE_URL',
    'DATABASE_URL is unset: PRODUCTION does not run on the embedded PGlite (one process, its data on this host only); set DATABASE_URL to a PostgreSQL database that is backed up',
  );
}

/** The archive keeps ten years of fiscal documents where nobody can change them: S3 Object Lock in COMPLIANCE mode. */
export function storageObjection(config: ProductionConfig): Objection | undefined {
  if (config.fiscalEnv !== 'PRODUCTION') return undefined;
  const { storage } = config;
  if (storage.kind === 'fs')
    return objection(
      config,
      'STORAGE',
      `STORAGE=fs: PRODUCTION does not keep its ten-year archive in files anyone with a shell on this host can change; set STORAGE=s3 with a bucket created with Object Lock and S3_OBJECT_LOCK_DAYS=${tenYearsDays} (on a WORM volume: PRODUCTION_ALLOW=fs-blobs, docs/operations.md)`,
      { override: 'fs-blobs' },
    );
  const days = storage.s3.objectLockDays;
  if (days === undefined)
    return objection(
      config,
      'S3_OBJECT_LOCK_DAYS',
      `S3_OBJECT_LOCK_DAYS is unset: archived files could be deleted or overwritten in the bucket; set S3_OBJECT_LOCK_DAYS=${tenYearsDays} on a bucket created with Object Lock (when the bucket's own default retention locks every object: PRODUCTION_ALLOW=s3-without-object-lock, docs/operations.md)`,
      { override: 's3-without-object-lock' },
    );
  if (days < tenYearsDays)
    return objection(
      config,
      'S3_OBJECT_LOCK_DAYS',
      `S3_OBJECT_LOCK_DAYS=${days} locks archived files ${grouped(tenYearsDays - days)} days short of the ten years (${grouped(tenYearsDays)} days) they must be kept; set S3_OBJECT_LOCK_DAYS=${tenYearsDays}`,
      { severity: 'warning' },
    );
  return undefined;
}

/** Without OPS_TOKEN nobody can watch the instance (/metrics, /internal/*); no override. */
export function opsTokenObjection(config: ProductionConfig): Objection | undefined {
  if (config.fiscalEnv !== 'PRODUCTION' || config.opsToken !== undefined) return undefined;
  return objection(
    config,
    'OPS_TOKEN',
    'OPS_TOKEN is unset: /metrics and the operations routes (/internal/*: DGII health, failed jobs, archive findings) answer 404, so nobody can watch this instance; set OPS_TOKEN to a secret of 16 characters or more',
  );
}

/** DGII's XSDs are public and installed with one command: nothing excuses checking documents without them. */
export function xsdObjection(config: ProductionConfig, xsdDir: string | undefined): Objection | undefined {
  if (config.fiscalEnv !== 'PRODUCTION' || xsdDir !== undefined) return undefined;
  return objection(
    config,
    'ECF_XSD_DIR',
    `no DGII XSDs installed (ECF_XSD_DIR is unset and DATA_DIR/xsd holds none): documents would be checked against the model only; ${xsdInstallHint}, or set ECF_XSD_DIR`,
  );
}

/** Every objection to this configuration, in the order the lines are printed; none outside PRODUCTION. */
export function productionObjections(config: ProductionConfig, xsdDir: string | undefined): Objection[] {
  return [
    databaseObjection(config),
    storageObjection(config),
    xsdObjection(config, xsdDir),
    opsTokenObjection(config),
  ].filter((found) => found !== undefined);
}

/** A PRODUCTION start stopped by its refusals: one line each (main.ts prints each as `ecf: …`). */
export class ProductionStartRefusedError extends Error {
  constructor(readonly refusals: readonly Objection[]) {
    super(refusals.map((refusal) => refusal.line).join('\necf: '));
    this.name = 'ProductionStartRefusedError';
  }
}

/** Throws for the refusals not overridden; returns what the start must log as warnings (the overridden ones too). */
export function enforceProductionRules(config: ProductionConfig, xsdDir: string | undefined): Objection[] {
  const objections = productionObjections(config, xsdDir);
  const refused = objections.filter((found) => found.severity === 'refusal' && !found.overridden);
  if (refused.length > 0) throw new ProductionStartRefusedError(refused);
  return objections;
}

/** How a start logs, and the doctor prints, an objection that does not stop the start. */
export function warningLine(objection: Objection): string {
  return objection.overridden
    ? `UNSAFE, allowed only by PRODUCTION_ALLOW=${String(objection.override)}: ${objection.line}`
    : objection.line;
}

/** A production rule's objection as the line of the check it belongs to: a refusal fails it unless overridden. */
export function objectionResult(check: string, objection: Objection | undefined): CheckResult[] {
  if (objection === undefined) return [];
  const refused = objection.severity === 'refusal' && !objection.overridden;
  return [{ check, status: refused ? 'failure' : 'warning', line: refused ? objection.line : warningLine(objection) }];
}
