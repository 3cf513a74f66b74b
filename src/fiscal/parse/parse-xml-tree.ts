// A DGII message other than an e-CF (RFCE, ARECF, ACECF, ANECF) read safely into a plain tree, for the code that
// knows its shape: every element as an array of occurrences (text, or a subtree), entities decoded the XML way,
// the XMLDSig Signature left out. Screened like every document from outside: size bounded, no DOCTYPE.
import { XMLParser } from 'fast-xml-parser';
import { error, type Finding } from '../finding.js';
import { scanCompactXml, type CompactXml } from '../xml/compact-xml.js';
import { parseGeneralXml } from '../xml/general-xml.js';
import { screenFindingCode, screenUntrustedXml } from '../xml/screen-untrusted-xml.js';
import { decodeXmlText } from './parse-ecf.js';

export interface XmlTree {
  readonly [name: string]: readonly (string | XmlTree)[];
}

export type XmlTreeResult = { ok: true; root: string; tree: XmlTree } | { ok: false; findings: Finding[] };

const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  processEntities: false,
  trimValues: false,
  isArray: () => true,
});

type Node = Readonly<Record<string, unknown>>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refuse(code: string, message: string): XmlTreeResult {
  return { ok: false, findings: [error('/', code, message)] };
}

export function parseXmlTree(input: string | Uint8Array): XmlTreeResult {
  const screened = screenUntrustedXml(input);
  if (!screened.ok) return refuse(screenFindingCode(screened.problem), screened.message);
  // The compact form (what our writer and DGII's signers produce) in one pass, as parse-ecf.ts reads it: validating
  // and parsing with fast-xml-parser cost several times more (the sandbox read every arriving document this way).
  const compact = scanCompactXml(screened.text);
  if (compact !== undefined) return compactXmlTree(compact);
  const general = parseGeneralXml(parser, screened.text);
  if (!general.ok) return refuse('malformed_xml', general.message);
  const document = general.document;
  const roots = Object.keys(document).filter((key) => key !== '?xml' && key !== '#text');
  const root = roots[0];
  const rootList = root === undefined ? undefined : document[root];
  if (roots.length !== 1 || root === undefined || !Array.isArray(rootList) || rootList.length !== 1)
    return refuse('malformed_xml', 'the document must have one root element');
  return treeOf(root, rootList[0]);
}

/** parseXmlTree of a document the caller screened and scanned already (fiscal/xml/compact-xml.ts). */
export function compactXmlTree(compact: CompactXml): XmlTreeResult {
  return treeOf(compact.rootName, compact.content);
}

function treeOf(root: string, content: unknown): XmlTreeResult {
  const findings: Finding[] = [];
  const tree = readNode(content, `/${root}`, findings, true);
  return findings.length > 0 ? { ok: false, findings } : { ok: true, root, tree };
}

function readNode(value: unknown, at: string, findings: Finding[], isRoot = false): XmlTree {
  // Without a prototype: element names are the sender's, and `__proto__` must stay a plain key.
  const out = Object.create(null) as Record<string, (string | XmlTree)[]>;
  if (!isNode(value)) return out;
  for (const [key, occurrences] of Object.entries(value)) {
    if (key === '#text') {
      const texts = (Array.isArray(occurrences) ? occurrences : [occurrences]) as unknown[];
      if (texts.some((text) => typeof text === 'string' && text.trim() !== ''))
        findings.push(error(at, 'unexpected_text', 'text between elements'));
      continue;
    }
    if (isRoot && key === 'Signature') continue;
    // fast-xml-parser gives every element as a list (isArray); the compact scan lists repeated ones only.
    out[key] = (Array.isArray(occurrences) ? (occurrences as unknown[]) : [occurrences]).map((occurrence, index) => {
      const path = `${at}/${key}[${String(index + 1)}]`;
      if (typeof occurrence === 'string') {
        const text = decodeXmlText(occurrence);
        if (text === undefined)
          findings.push(
            error(
              path,
              'unknown_entity',
              `${key} refers to an entity XML does not predefine, or to a character XML does not allow`,
            ),
          );
        return text ?? '';
      }
      if (isNode(occurrence) && Object.keys(occurrence).length === 0) return '';
      return readNode(occurrence, path, findings);
    });
  }
  return out;
}

/** The text of the only occurrence of `name` in `tree`; undefined when absent, repeated or not text. */
export function textOf(tree: XmlTree, name: string): string | undefined {
  const occurrences = tree[name];
  if (occurrences?.length !== 1) return undefined;
  const value = occurrences[0];
  return typeof value === 'string' ? value : undefined;
}

/** The subtrees of `name` in `tree` (text occurrences left out). */
export function groupsOf(tree: XmlTree, name: string): XmlTree[] {
  return (tree[name] ?? []).filter((value): value is XmlTree => typeof value !== 'string');
}
