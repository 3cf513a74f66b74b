// DGII's issuer certification as pure code: the set workbook's columns, the set file and its checks, the steps.
export { caseKeyColumn, emptyCell, sheetHeaders, type SetSheet } from './set-columns.js';
export {
  caseOfRow,
  cellsOfCase,
  DuplicateColumnError,
  readHeaderRow,
  type Json,
  type SetCase,
  type SheetColumns,
} from './set-rows.js';
export { checkEcfCase, isRfceRouted, leavesOf, splitOwnedFields } from './set-check.js';
export { checkSetFile, deriveAcecfCases, type CaseFinding } from './set-file.js';
export { rfcePayloadOf } from './rfce-payload.js';
export {
  certificationSteps,
  confirmationKeys,
  maxPrintedBytes,
  printedSlots,
  stepNumbered,
  stepOfKey,
  type CertificationStep,
  type ConfirmationKey,
} from './steps.js';
export { simulationCases, type SimulationCase } from './simulation.js';
export { casesOfWorkbookRows, type RowFinding, type WorkbookCases, type WorkbookRows } from './set-workbook.js';
