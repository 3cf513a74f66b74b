import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  compileSchemaSet,
  kindOfSchemaFile,
  schemaKinds,
  type SchemaSet,
  type SchemaSetOptions,
} from '../../fiscal/xsd/index.js';
import { xsdInstallHint } from './xsd-dir.js';

/** The slice of a logger this needs; pino's Logger fits. */
export interface SchemaLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

/** For a loader whose caller reports the outcome itself (the XML thread, the installer). */
export const silentSchemaLog: SchemaLog = { info: () => undefined, warn: () => undefined };

export class XsdDirectoryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'XsdDirectoryError';
  }
}

/**
 * DGII's official schemas, read from the operator's directory or the set `ecf xsd install` put under DATA_DIR (never
 * copied into this repository), repaired in memory and compiled once. Without a directory the service still runs:
 * the document model is the only check, and the warning says how to install them.
 */
export async function loadSchemaSet(
  dir: string | undefined,
  log: SchemaLog,
  options?: SchemaSetOptions,
): Promise<SchemaSet | undefined> {
  if (dir === undefined) {
    log.warn(
      { xsdDir: null },
      `no DGII XSDs found (ECF_XSD_DIR unset, none installed under DATA_DIR/xsd); documents are checked against the model only; ${xsdInstallHint}`,
    );
    return undefined;
  }
  const files = await readSchemaFiles(dir);
  const set = compileSchemaSet(files, options);
  for (const repair of set.repairs) log.info({ xsdDir: dir, repair }, 'repaired a defect of an official XSD in memory');
  log.info({ xsdDir: dir, schemas: schemaKinds.length, repairs: set.repairs.length }, 'official XSDs compiled');
  return set;
}

async function readSchemaFiles(dir: string): Promise<Map<string, string>> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    throw new XsdDirectoryError(
      `ECF_XSD_DIR ${dir} cannot be read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const schemaFiles = names.filter((name) => kindOfSchemaFile(name) !== undefined);
  const found = new Set(schemaFiles.map((name) => kindOfSchemaFile(name)));
  const missing = schemaKinds.filter((kind) => !found.has(kind));
  if (missing.length > 0) {
    throw new XsdDirectoryError(
      `ECF_XSD_DIR ${dir} lacks the XSD for ${missing.map((kind) => `${kind} (${kind}.xsd)`).join(', ')}`,
    );
  }
  const entries = await Promise.all(
    schemaFiles.map(async (name) => [name, await readFile(join(dir, name), 'utf8')] as const),
  );
  return new Map(entries);
}
