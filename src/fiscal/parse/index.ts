export { decodeXmlText, parseEcf } from './parse-ecf.js';
export type { ParseResult } from './parse-ecf.js';
