export { openXlsx, readXlsxSheets, XlsxError } from './xlsx-reader.js';
export type { XlsxReadOptions, XlsxRow, XlsxWorkbook } from './xlsx-reader.js';
export { writeXlsx } from './xlsx-writer.js';
export type { XlsxCellValue, XlsxSheet } from './xlsx-writer.js';
