// `ecf xsd install <dir|file.zip|URL>`: puts DGII's fifteen XSDs under DATA_DIR/xsd, where the service finds them
// when ECF_XSD_DIR is unset, once they are all there and compile. What was installed goes to stdout; a failure is
// one line on stderr. Exit 0 installed, 1 the source is unreadable, incomplete or broken (nothing changed), 2 usage.
import type { Config } from './config.js';
import { systemClock } from './platform/clock.js';
import { installSchemaSet, readXsdSource, XsdSourceError, type InstalledSet } from './platform/xsd/index.js';

export const xsdUsage = 'ecf xsd install <dir|file.zip|https://…/file.zip>';

export interface CommandIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** Returns the exit code. */
export async function runXsdCommand(
  argv: readonly string[],
  config: Pick<Config, 'dataDir' | 'xsdDir'>,
  io: CommandIo = process,
): Promise<number> {
  const [action, location, ...extra] = argv;
  if (action !== 'install' || location === undefined || location === '' || extra.length > 0) {
    io.stderr.write(`usage: ${xsdUsage}\n`);
    return 2;
  }
  try {
    const installed = await installSchemaSet(await readXsdSource(location), config.dataDir, systemClock);
    io.stdout.write(describeInstall(installed, location));
    if (config.xsdDir !== undefined)
      io.stderr.write(`ecf: note: ECF_XSD_DIR is set (${config.xsdDir}); the service reads that, not this install\n`);
    return 0;
  } catch (error) {
    // A bad source, or a DATA_DIR that cannot be written (the file system's errors carry a code).
    if (error instanceof XsdSourceError || (error instanceof Error && 'code' in error)) {
      io.stderr.write(`ecf: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

function describeInstall(installed: InstalledSet, location: string): string {
  const width = Math.max(...installed.files.map((file) => file.name.length));
  const files = installed.files.map((file) => {
    const size = `${file.bytes.toLocaleString('en-US')} bytes`.padStart(13);
    const from = file.source === file.name ? '' : `  from ${file.source}`;
    return `  ${file.name.padEnd(width)}  ${size}  sha256 ${file.sha256.slice(0, 16)}${from}`;
  });
  return [
    `Installed DGII's ${installed.files.length} XSDs from ${location} into ${installed.dir}:`,
    ...files,
    `They compile with ${installed.repairs.length} repairs of DGII's known defects, made in memory at each load ` +
      '(the files stay as DGII publishes them):',
    ...installed.repairs.map((repair) => `  ${repair}`),
    'The service uses them from its next start when ECF_XSD_DIR is unset.',
    '',
  ].join('\n');
}
