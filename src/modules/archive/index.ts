export { archiveModule, verifierSettingsOf } from './archive.module.js';
export { createArchiveService, type ArchiveService, type ArchiveSummary } from './archive.service.js';
export { createVerifier, type PassScope } from './verifier.js';
export { archiveUsage, ArchiveArgumentError, runArchiveCommand } from './archive.command.js';
export type { ArchiveTables } from './tables.js';
