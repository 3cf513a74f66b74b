// `ecf certification convert <workbook.xlsx> [--label <text>]`: DGII's set workbook to the set file on stdout
// (SPEC §2.3), findings on stderr one per line. Exit 0 when the workbook was read (even with findings), 2 with one
// line when it cannot be read or is not a DGII set, or the arguments are wrong. Offline: no database, no network.
import { convertSetWorkbook, SetWorkbookError } from './set-converter.js';

export const certificationUsage = 'ecf certification convert <workbook.xlsx> [--label <text>]';

export interface CommandIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

function argumentsOf(argv: readonly string[]): { path: string; label?: string } | undefined {
  const [action, ...rest] = argv;
  if (action !== 'convert') return undefined;
  let path: string | undefined;
  let label: string | undefined;
  for (let index = 0; index < rest.length; index += 1) {
    const argument = rest[index];
    if (argument === '--label') {
      label = rest[index + 1];
      if (label === undefined || label === '') return undefined;
      index += 1;
    } else if (path === undefined && argument !== undefined && argument !== '' && !argument.startsWith('--')) {
      path = argument;
    } else {
      return undefined;
    }
  }
  return path === undefined ? undefined : { path, ...(label === undefined ? {} : { label }) };
}

/** Returns the exit code. */
export async function runCertificationCommand(
  argv: readonly string[],
  io: CommandIo = process,
  now: Date = new Date(),
): Promise<number> {
  const parsed = argumentsOf(argv);
  if (parsed === undefined) {
    io.stderr.write(`ecf: usage: ${certificationUsage}\n`);
    return 2;
  }
  try {
    const converted = await convertSetWorkbook(parsed.path, {
      now,
      ...(parsed.label === undefined ? {} : { label: parsed.label }),
    });
    for (const finding of converted.findings) io.stderr.write(`${finding}\n`);
    io.stdout.write(`${JSON.stringify(converted.file, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof SetWorkbookError) {
      io.stderr.write(`ecf: ${error.message}\n`);
      return 2;
    }
    if (
      error instanceof Error &&
      'code' in error &&
      (error.code === 'ENOENT' || error.code === 'EISDIR' || error.code === 'EACCES')
    ) {
      io.stderr.write(`ecf: cannot read ${parsed.path} (${error.code})\n`);
      return 2;
    }
    throw error;
  }
}
