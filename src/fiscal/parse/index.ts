export { decodeXmlText, parseCompactEcf, parseEcf } from './parse-ecf.js';
export type { ParseResult } from './parse-ecf.js';
export { compactXmlTree, groupsOf, parseXmlTree, textOf } from './parse-xml-tree.js';
export type { XmlTree, XmlTreeResult } from './parse-xml-tree.js';
