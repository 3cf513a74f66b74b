// The checks that read the configuration and the files beside it: OPS_TOKEN, and DGII's XSDs installed and compiling.
import type { Config } from '../config.js';
import { SchemaCompileError, schemaKinds } from '../fiscal/xsd/index.js';
import {
  findXsdDir,
  loadSchemaSet,
  silentSchemaLog,
  XsdDirectoryError,
  xsdInstallHint,
} from '../platform/xsd/index.js';
import { reasonOf, type CheckResult } from './check.js';
import { objectionResult, opsTokenObjection, xsdObjection } from './production-rules.js';

export function checkOpsToken(config: Config): CheckResult[] {
  const objection = objectionResult('ops-token', opsTokenObjection(config));
  if (objection.length > 0) return objection;
  return [
    config.opsToken === undefined
      ? {
          check: 'ops-token',
          status: 'ok',
          line: 'OPS_TOKEN is unset: /metrics and /internal/* answer 404 (PRODUCTION requires it)',
        }
      : { check: 'ops-token', status: 'ok', line: 'OPS_TOKEN is set: /metrics and /internal/* answer its bearer' },
  ];
}

/** The fifteen XSDs are there and compile, with the repairs the service makes at every load. */
export async function checkXsds(config: Config, progress: (what: string) => void): Promise<CheckResult[]> {
  const dir = await findXsdDir(config);
  const result = (status: CheckResult['status'], line: string): CheckResult[] => [{ check: 'xsds', status, line }];
  if (dir === undefined) {
    const objection = objectionResult('xsds', xsdObjection(config, dir));
    return objection.length > 0
      ? objection
      : result(
          'warning',
          `no DGII XSDs installed (ECF_XSD_DIR is unset and DATA_DIR/xsd holds none): documents are checked against the model only; ${xsdInstallHint}`,
        );
  }
  progress("compiling DGII's XSDs");
  try {
    const set = await loadSchemaSet(dir, silentSchemaLog);
    const repairs = set?.repairs.length ?? 0;
    set?.dispose();
    return result(
      'ok',
      `DGII's ${schemaKinds.length} XSDs in ${dir} compile (with ${repairs} repairs of DGII's known defects, made in memory)`,
    );
  } catch (error) {
    if (error instanceof XsdDirectoryError || error instanceof SchemaCompileError)
      return result('failure', `${reasonOf(error)}; ${xsdInstallHint}`);
    throw error;
  }
}
