export { loadSchemaSet, silentSchemaLog, XsdDirectoryError, type SchemaLog } from './load-schemas.js';
export { installSchemaSet, type InstalledFile, type InstalledSet } from './install-schemas.js';
export { findXsdDir, installedXsdDir, xsdInstallHint } from './xsd-dir.js';
export { readXsdSource, XsdSourceError, type XsdSource, type XsdSourceFile } from './xsd-source.js';
