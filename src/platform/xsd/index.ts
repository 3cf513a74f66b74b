export { loadSchemaSet, silentSchemaLog, XsdDirectoryError, xsdInstallHint, type SchemaLog } from './load-schemas.js';
export {
  findXsdDir,
  installedXsdDir,
  installSchemaSet,
  type InstalledFile,
  type InstalledSet,
} from './install-schemas.js';
export { readXsdSource, XsdSourceError, type XsdSource, type XsdSourceFile } from './xsd-source.js';
