// The canonical-form contract between the XML writer and the signing fast path (sign-canonical.ts).
//
// A CANONICAL DOCUMENT is, byte for byte, `[XML_DECLARATION]root`: optionally the exact declaration
// `<?xml version="1.0" encoding="utf-8"?>`, then one root element, with nothing before, between or after (no BOM, no
// whitespace, no newline, no comment, no processing instruction). `root` must be exactly what inclusive C14N 1.0
// (W3C REC-xml-c14n-20010315) outputs for it, which means:
//
//  1. Start tags: `<name`, then the namespace declarations, then the attributes, each written ` name="value"` (one
//     space, double quotes), then `>`. Declarations are sorted by prefix with the default one (`xmlns`) first;
//     attributes are sorted by (namespace URI, local name), so unprefixed attributes come first. A declaration
//     appears only where its binding is not already in scope (C14N drops redundant ones).
//     Example: `<ECF xmlns:xsi="…XMLSchema-instance" xmlns:xsd="…XMLSchema">` is NOT canonical (xsd < xsi);
//     use canonicalStartTag() below.
//  2. No empty-element tags: `<A></A>`, never `<A/>`. (DGII rejects empty elements anyway: emit none.)
//  3. Text: `&` → `&amp;`, `<` → `&lt;`, `>` → `&gt;`, CR → `&#xD;`; every other character literal UTF-8 (no other
//     character references, no CDATA sections). Attribute values: `&` → `&amp;`, `<` → `&lt;`, `"` → `&quot;`,
//     TAB → `&#x9;`, LF → `&#xA;`, CR → `&#xD;`; `>` and `'` literal. Line ends inside text are LF.
//  4. No whitespace-only text node anywhere (no indentation, no element whose content is only spaces): DGII signs
//     and verifies with PreserveWhitespace = false (Firmado de e-CF, Java and PHP notes), so such a node would be
//     dropped before DGII computes the digest.
//  5. No comments and no processing instructions (C14N without comments would leave a comment unsigned).
//  6. The root has no `xml:*` attribute (inclusive C14N would copy it into SignedInfo), no `xmlns=""`, and no
//     Signature yet. Element and attribute names are ASCII.
//
// The fast path checks the declaration, the root start tag and the end tag (cheap, and where the known mistakes
// are); it trusts the writer for the rest. A writer's tests should assert toCanonicalDocument(x) === x
// (canonicalize.ts), which checks everything.
import { XML_DECLARATION } from './profile.js';

export interface RootStartTag {
  name: string;
  /** Offset of `<` of the root element in the document. */
  rootOffset: number;
  /** The namespace declarations with a prefix, as written (` xmlns:p="uri"`), in order. */
  prefixedNamespaceDeclarations: string;
}

export class NonCanonicalDocumentError extends Error {
  override readonly name = 'NonCanonicalDocumentError';
  constructor(readonly problems: readonly string[]) {
    super(`The document is not in canonical form: ${problems.join('; ')}`);
  }
}

/** Checks the parts of the contract the fast path relies on; the problems found, [] when none. */
export function checkCanonicalRoot(document: string): string[] {
  const parsed = parseRootStartTag(document);
  return typeof parsed === 'string' ? [parsed] : parsed.problems;
}

export function assertCanonicalRoot(document: string): RootStartTag {
  const parsed = parseRootStartTag(document);
  if (typeof parsed === 'string') throw new NonCanonicalDocumentError([parsed]);
  if (parsed.problems.length > 0) throw new NonCanonicalDocumentError(parsed.problems);
  return parsed.tag;
}

const NAME = '[A-Za-z_][\\w.-]*(?::[A-Za-z_][\\w.-]*)?';
const ROOT_NAME = new RegExp(`<(${NAME})`, 'y');
const ATTRIBUTE = new RegExp(` (${NAME})="([^"<]*)"`, 'y');
const BAD_ESCAPE = /[\t\n\r]|&(?!(?:amp|lt|quot|#x9|#xA|#xD);)/;

type SortKey = readonly [namespaceUri: string, localName: string];

function parseRootStartTag(document: string): string | { tag: RootStartTag; problems: string[] } {
  const rootOffset = document.startsWith(XML_DECLARATION) ? XML_DECLARATION.length : 0;
  if (rootOffset === 0 && document.startsWith('<?xml')) return `the XML declaration must be exactly ${XML_DECLARATION}`;
  ROOT_NAME.lastIndex = rootOffset;
  const nameMatch = ROOT_NAME.exec(document);
  const name = nameMatch?.[1];
  if (name === undefined)
    return 'the document must start with the root element (nothing before it but the declaration)';

  const declared: [prefix: string, uri: string][] = [];
  const attributes: [qualifiedName: string, value: string][] = [];
  let declarationAfterAttribute = false;
  let position = ROOT_NAME.lastIndex;
  for (;;) {
    ATTRIBUTE.lastIndex = position;
    const match = ATTRIBUTE.exec(document);
    if (match === null) break;
    const [, qualifiedName = '', value = ''] = match;
    if (qualifiedName === 'xmlns' || qualifiedName.startsWith('xmlns:')) {
      declared.push([qualifiedName.slice(6), value]);
      if (attributes.length > 0) declarationAfterAttribute = true;
    } else {
      attributes.push([qualifiedName, value]);
    }
    position = ATTRIBUTE.lastIndex;
  }
  if (document[position] !== '>')
    return `the root start tag must be \` name="value"\` pairs and then \`>\` (at offset ${position})`;

  const problems = [...startTagProblems(declared, attributes)];
  if (declarationAfterAttribute) problems.unshift('namespace declarations must come before attributes');
  if (!document.endsWith(`</${name}>`)) problems.push(`the document must end with </${name}> and nothing after it`);
  const prefixedNamespaceDeclarations = declared
    .filter(([prefix]) => prefix !== '')
    .map(([prefix, uri]) => ` xmlns:${prefix}="${uri}"`)
    .join('');
  return { tag: { name, rootOffset, prefixedNamespaceDeclarations }, problems };
}

function* startTagProblems(declared: [string, string][], attributes: [string, string][]): Generator<string> {
  for (let i = 1; i < declared.length; i++) {
    const previous = declared[i - 1]?.[0] ?? '';
    const current = declared[i]?.[0] ?? '';
    if (compare(previous, current) >= 0)
      yield `namespace declarations must be sorted by prefix: ${describePrefix(current)} must come before ${describePrefix(previous)}`;
  }
  for (const [prefix, uri] of declared) {
    if (prefix === '' && uri === '') yield 'the root must not carry xmlns="" (C14N omits it)';
    if (prefix === 'xml') yield 'the root must not declare xmlns:xml (C14N omits it)';
    if (BAD_ESCAPE.test(uri)) yield `the namespace URI of ${describePrefix(prefix)} is not escaped as C14N does`;
  }
  const bindings = new Map(declared);
  const undeclared = attributes.filter(
    ([qualifiedName]) => /^(?!xml:)[^:]+:/.test(qualifiedName) && !bindings.has(qualifiedName.split(':')[0] ?? ''),
  );
  for (const [qualifiedName] of undeclared) yield `the prefix of ${qualifiedName} is not declared on the root`;
  if (undeclared.length > 0) return;
  const keys = attributes.map(([qualifiedName]) => attributeSortKey(qualifiedName, (prefix) => bindings.get(prefix)));
  for (let i = 1; i < keys.length; i++) {
    const previous = keys[i - 1];
    const current = keys[i];
    if (previous !== undefined && current !== undefined && compareKeys(previous, current) >= 0) {
      yield `attributes must be sorted by namespace URI and local name: ${attributes[i]?.[0] ?? ''} must come before ${attributes[i - 1]?.[0] ?? ''}`;
    }
  }
  for (const [qualifiedName, value] of attributes) {
    if (qualifiedName.startsWith('xml:'))
      yield `the root must not carry ${qualifiedName} (inclusive C14N copies xml:* attributes into SignedInfo)`;
    if (BAD_ESCAPE.test(value)) yield `the value of ${qualifiedName} is not escaped as C14N does`;
  }
}

function attributeSortKey(qualifiedName: string, resolve: (prefix: string) => string | undefined): SortKey {
  const colon = qualifiedName.indexOf(':');
  if (colon === -1) return ['', qualifiedName];
  const prefix = qualifiedName.slice(0, colon);
  const uri = prefix === 'xml' ? 'http://www.w3.org/XML/1998/namespace' : resolve(prefix);
  if (uri === undefined)
    throw new NonCanonicalDocumentError([`the prefix of ${qualifiedName} is not declared on the root`]);
  return [uri, qualifiedName.slice(colon + 1)];
}

function compareKeys(a: SortKey, b: SortKey): number {
  return compare(a[0], b[0]) || compare(a[1], b[1]);
}

// C14N orders by Unicode code point; names and URIs here are ASCII, where UTF-16 code-unit order is the same.
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function describePrefix(prefix: string): string {
  return prefix === '' ? 'xmlns' : `xmlns:${prefix}`;
}
