export { compileXsd, SchemaCompileError, type CompiledXsd } from './compile-schema.js';
export { repairSchema, type RepairedSchema } from './repair-schema.js';
export { detectKind, isSchemaKind, kindOfSchemaFile, schemaKinds, type SchemaKind } from './schema-kinds.js';
export { compileSchemaSet, SchemaSetError, type SchemaSet, type SchemaSetOptions } from './schema-set.js';
export { defaultMaxXmlBytes } from './xml-guard.js';
export type { XsdFinding, XsdFindingCode } from './xsd-finding.js';
