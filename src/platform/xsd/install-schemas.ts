// DGII's XSDs installed under DATA_DIR, where the service finds them when ECF_XSD_DIR is unset. The files are
// kept byte for byte as DGII publishes them (renamed to one name per kind); the known defects are repaired in
// memory at every load, by the same loader the service uses, which also proves here that the set compiles.
import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SchemaCompileError } from '../../fiscal/xsd/index.js';
import type { Clock } from '../clock.js';
import { loadSchemaSet, silentSchemaLog } from './load-schemas.js';
import { installedXsdDir, manifestName } from './xsd-dir.js';
import { XsdSourceError, type XsdSource } from './xsd-source.js';

export interface InstalledFile {
  /** The installed name, `${kind}.xsd`. */
  name: string;
  /** Where it came from in the source. */
  source: string;
  bytes: number;
  sha256: string;
}

export interface InstalledSet {
  dir: string;
  files: InstalledFile[];
  /** The repairs the loader makes to these files, one line each. */
  repairs: readonly string[];
}

/**
 * Writes the set beside the target, compiles it there, and only then swaps it in (two renames on one file system:
 * the previous install stays whole until the new one is complete and compiles).
 */
export async function installSchemaSet(source: XsdSource, dataDir: string, clock: Clock): Promise<InstalledSet> {
  await mkdir(dataDir, { recursive: true });
  const target = installedXsdDir(dataDir);
  const staging = await mkdtemp(join(dataDir, '.xsd-install-'));
  try {
    const files = source.files.map((file): InstalledFile => ({
      name: `${file.kind}.xsd`,
      source: file.name,
      bytes: file.bytes.length,
      sha256: createHash('sha256').update(file.bytes).digest('hex'),
    }));
    await Promise.all(source.files.map((file) => writeFile(join(staging, `${file.kind}.xsd`), file.bytes)));
    const repairs = await compileInstalled(staging, files);
    const manifest = { installedAt: clock.now().toISOString(), source: source.label, files, repairs };
    await writeFile(join(staging, manifestName), `${JSON.stringify(manifest, null, 2)}\n`);
    // mkdtemp makes it 0700; DGII's files are public, and the service may run as another user than the installer.
    await chmod(staging, 0o755);
    await swapIn(staging, target);
    return { dir: target, files, repairs };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

async function compileInstalled(dir: string, files: readonly InstalledFile[]): Promise<readonly string[]> {
  try {
    const set = await loadSchemaSet(dir, silentSchemaLog);
    const repairs = set?.repairs ?? [];
    set?.dispose();
    return repairs;
  } catch (error) {
    if (!(error instanceof SchemaCompileError)) throw error;
    const from = files.find((file) => file.name === error.fileName)?.source;
    throw new XsdSourceError(
      `${error.fileName}${from === undefined || from === error.fileName ? '' : ` (${from})`} does not compile, ` +
        `even with the known repairs: ${error.problems.join('; ')}; nothing was installed`,
    );
  }
}

async function swapIn(staging: string, target: string): Promise<void> {
  const previous = `${staging}-previous`;
  let moved = false;
  try {
    await rename(target, previous);
    moved = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  try {
    await rename(staging, target);
  } catch (error) {
    if (moved) await rename(previous, target);
    throw error;
  }
  if (moved) await rm(previous, { recursive: true, force: true });
}
