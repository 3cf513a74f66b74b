export { createXmlChecks, offThreadBytes, type XmlChecks } from './xml-checks.js';
