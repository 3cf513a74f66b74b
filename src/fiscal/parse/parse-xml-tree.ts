// A DGII message other than an e-CF (RFCE, ARECF, ACECF, ANECF) read safely into a plain tree, for the code that
// knows its shape: every element as an array of occurrences (text, or a subtree), entities decoded the XML way,
// the XMLDSig Signature left out. Screened like every document from outside: size bounded, no DOCTYPE.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { error, type Finding } from '../finding.js';
import { screenUntrustedXml } from '../xml/untrusted-xml.js';
import { decodeXmlText } from './parse-ecf.js';

export interface XmlTree {
  readonly [name: string]: readonly (string | XmlTree)[];
}

export type XmlTreeResult = { ok: true; root: string; tree: XmlTree } | { ok: false; findings: Finding[] };

const parser = new XMLParser({ ignoreAttributes: true, parseTagValue: false, processEntities: false, trimValues: false, isArray: () => true });

type Node = Readonly<Record<string, unknown>>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refuse(code: string, message: string): XmlTreeResult {
  return { ok: false, findings: [error('/', code, message)] };
}

export function parseXmlTree(input: string | Uint8Array): XmlTreeResult {
  const screened = screenUntrustedXml(input);
  if (!screened.ok) return refuse(screened.problem === 'markup_declaration' ? 'doctype_not_allowed' : screened.problem === 'too_large' ? 'too_large' : 'malformed_xml', screened.message);
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- its successor, fast-xml-validator, is not a dependency
  const valid = XMLValidator.validate(screened.text);
  if (valid !== true) return refuse('malformed_xml', `not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  const document = parser.parse(screened.text) as Node;
  const roots = Object.keys(document).filter((key) => key !== '?xml' && key !== '#text');
  const root = roots[0];
  const rootList = root === undefined ? undefined : document[root];
  if (roots.length !== 1 || root === undefined || !Array.isArray(rootList) || rootList.length !== 1) return refuse('malformed_xml', 'the document must have one root element');
  const findings: Finding[] = [];
  const tree = readNode(rootList[0], `/${root}`, findings, true);
  return findings.length > 0 ? { ok: false, findings } : { ok: true, root, tree };
}

function readNode(value: unknown, at: string, findings: Finding[], isRoot = false): XmlTree {
  if (!isNode(value)) return {};
  const out: Record<string, (string | XmlTree)[]> = {};
  for (const [key, occurrences] of Object.entries(value)) {
    if (key === '#text') {
      const texts = (Array.isArray(occurrences) ? occurrences : [occurrences]) as unknown[];
      if (texts.some((text) => typeof text === 'string' && text.trim() !== '')) findings.push(error(at, 'unexpected_text', 'text between elements'));
      continue;
    }
    if (isRoot && key === 'Signature') continue;
    out[key] = (occurrences as unknown[]).map((occurrence, index) => {
      const path = `${at}/${key}[${String(index + 1)}]`;
      if (typeof occurrence === 'string') {
        const text = decodeXmlText(occurrence);
        if (text === undefined) findings.push(error(path, 'unknown_entity', `${key} refers to an entity XML does not predefine`));
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
