// Where the service reads DGII's XSDs from. Apart from the loader and the installer (which load libxml2), so that a
// start can tell whether a set is there before it loads anything.
import { access } from 'node:fs/promises';
import { join } from 'node:path';

/** What an operator runs to have the XSDs found by default (src/xsd-command.ts). */
export const xsdInstallHint = 'run: ecf xsd install <dir|zip|URL>';

/** Written last into an install: a directory without it is not an installed set. */
export const manifestName = 'installed.json';

export function installedXsdDir(dataDir: string): string {
  return join(dataDir, 'xsd');
}

/** The directory the service reads DGII's XSDs from: ECF_XSD_DIR when set, else an installed set, else none. */
export async function findXsdDir(config: { xsdDir: string | undefined; dataDir: string }): Promise<string | undefined> {
  if (config.xsdDir !== undefined) return config.xsdDir;
  const dir = installedXsdDir(config.dataDir);
  try {
    await access(join(dir, manifestName));
    return dir;
  } catch {
    return undefined;
  }
}
