// `ecf doctor [--json]`: a read-only preflight of this deployment's configuration, run where the service runs. One
// line per check on stdout (`ok`, `warning` or `failure`, what it found and what to do), or one JSON document with
// --json; a progress line on stderr before each slow check. Exit 0 all ok, 1 warnings, 2 failures (or usage).
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { systemClock, type Clock } from '../platform/clock.js';
import { exitCodeOf, type CheckResult } from './check.js';
import { runDoctor } from './doctor.js';

export const doctorUsage = 'ecf doctor [--json]';

export interface CommandIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

function textOf(results: readonly CheckResult[]): string {
  const lines = results.map(
    ({ check, company, status, line }) =>
      `${status.padEnd(8)}${company === undefined ? check : `${check} ${company}`}: ${line}`,
  );
  const count = (status: CheckResult['status']) => results.filter((result) => result.status === status).length;
  lines.push(`${count('ok')} ok, ${count('warning')} warning(s), ${count('failure')} failure(s)`);
  return `${lines.join('\n')}\n`;
}

/** Returns the exit code. `readConfig`: the environment's configuration (tests give their own). */
export async function runDoctorCommand(
  argv: readonly string[],
  io: CommandIo = process,
  options: { readConfig?: () => Config; clock?: Clock } = {},
): Promise<number> {
  let json: boolean;
  try {
    json = parseArgs({ args: [...argv], options: { json: { type: 'boolean' } }, strict: true }).values.json === true;
  } catch (error) {
    io.stderr.write(`ecf doctor: ${error instanceof Error ? error.message : String(error)}\nusage: ${doctorUsage}\n`);
    return 2;
  }
  let results: CheckResult[];
  try {
    const config = (options.readConfig ?? loadConfig)();
    results = [
      { check: 'configuration', status: 'ok', line: `the settings are valid; FISCAL_ENV=${config.fiscalEnv}` },
      ...(await runDoctor({
        config,
        clock: options.clock ?? systemClock,
        progress: (what) => io.stderr.write(`ecf doctor: ${what}…\n`),
      })),
    ];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    results = [{ check: 'configuration', status: 'failure', line: error.message }];
  }
  const exitCode = exitCodeOf(results);
  io.stdout.write(json ? `${JSON.stringify({ exitCode, checks: results }, null, 2)}\n` : textOf(results));
  return exitCode;
}
