export { loadSchemaSet, XsdDirectoryError, type SchemaLog } from './load-schemas.js';
