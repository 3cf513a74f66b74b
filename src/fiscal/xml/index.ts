export {
  escapeAttribute,
  escapeText,
  isXmlText,
  writeCanonicalElement,
  writeXmlDocument,
  xmlDeclaration,
} from './xml-writer.js';
export type { XmlElement } from './xml-writer.js';
