// The one XML writer for documents we build. It writes the root element directly in Canonical XML 1.0 form
// (https://www.w3.org/TR/2001/REC-xml-c14n-20010315), so the signer can digest these bytes as they are:
// no whitespace between elements, start and end tags (never `<x/>`), namespace declarations sorted by prefix
// (default first) before attributes sorted by namespace URI then local name, and C14N's escaping.
// Escaping happens here and only here; callers pass raw text.

export interface XmlElement {
  readonly name: string;
  /** Namespace declarations: prefix ('' for the default namespace) → URI. */
  readonly namespaces?: Readonly<Record<string, string>>;
  /** Attributes by qualified name (`Id`, `xsi:schemaLocation`). */
  readonly attributes?: Readonly<Record<string, string>>;
  /** Text, or child elements; never empty (DGII rejects empty elements — Descripción técnica, restricciones). */
  readonly content: string | readonly XmlElement[];
}

/** An element holding text. */
export function leaf(name: string, text: string): XmlElement {
  return { name, content: text };
}

export const xmlDeclaration = '<?xml version="1.0" encoding="utf-8"?>';

/** The whole document: the declaration DGII's samples carry, then the canonical root. */
export function writeXmlDocument(root: XmlElement): string {
  return xmlDeclaration + writeCanonicalElement(root);
}

/** XML 1.0 Char production: what a document may contain at all. */
const notXmlChar = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

export function isXmlText(value: string): boolean {
  return !notXmlChar.test(value);
}

/** C14N §2.3: text nodes. */
export function escapeText(value: string): string {
  // Most text needs no escaping: testing first spares a replace (and its callback) per value.
  return needsTextEscape.test(value) ? value.replace(/[&<>\r]/g, (c) => textEscapes[c] ?? c) : value;
}
const needsTextEscape = /[&<>\r]/;
const textEscapes: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#xD;' };

/** C14N §2.3: attribute values. */
export function escapeAttribute(value: string): string {
  return value.replace(/[&<"\t\n\r]/g, (c) => attributeEscapes[c] ?? c);
}
const attributeEscapes: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '"': '&quot;',
  '\t': '&#x9;',
  '\n': '&#xA;',
  '\r': '&#xD;',
};

type Scope = ReadonlyMap<string, string>;

export function writeCanonicalElement(root: XmlElement): string {
  const out: string[] = [];
  writeElement(root, new Map([['', '']]), new Map([['', '']]), out);
  return out.join('');
}

/** Code-point order, as C14N requires (JavaScript's `<` compares UTF-16 code units). */
function compareCodePoints(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const left = a.codePointAt(i) ?? 0;
    const right = b.codePointAt(j) ?? 0;
    if (left !== right) return left - right;
    i += left > 0xffff ? 2 : 1;
    j += right > 0xffff ? 2 : 1;
  }
  return a.length - i - (b.length - j);
}

function writeElement(element: XmlElement, inScope: Scope, rendered: Scope, out: string[]): void {
  checkName(element.name);
  // Most elements declare nothing: they share their parent's scope instead of copying it (the hot path).
  let scope = inScope;
  let nowRendered = rendered;
  const declarations: [string, string][] = [];
  if (element.namespaces !== undefined) {
    const widened = new Map(inScope);
    const widenedRendered = new Map(rendered);
    for (const [prefix, uri] of Object.entries(element.namespaces)) {
      if (prefix !== '') checkName(prefix);
      widened.set(prefix, uri);
      // C14N §2.3: a declaration already in effect from an output ancestor is superfluous (xmlns="" at the top too).
      if (rendered.get(prefix) === uri) continue;
      widenedRendered.set(prefix, uri);
      declarations.push([prefix, uri]);
    }
    declarations.sort(([a], [b]) => compareCodePoints(a, b));
    scope = widened;
    nowRendered = widenedRendered;
  }

  const attributes =
    element.attributes === undefined
      ? []
      : Object.entries(element.attributes).map(([name, value]) => {
          checkName(name);
          const colon = name.indexOf(':');
          const prefix = colon < 0 ? undefined : name.slice(0, colon);
          const uri = prefix === undefined ? '' : scope.get(prefix);
          if (uri === undefined) throw new Error(`attribute ${name}: prefix not declared`);
          return { name, value, uri, local: colon < 0 ? name : name.slice(colon + 1) };
        });
  attributes.sort((a, b) => compareCodePoints(a.uri, b.uri) || compareCodePoints(a.local, b.local));

  out.push('<', element.name);
  for (const [prefix, uri] of declarations)
    out.push(prefix === '' ? ' xmlns="' : ` xmlns:${prefix}="`, escapeAttribute(checked(uri)), '"');
  for (const attribute of attributes)
    out.push(' ', attribute.name, '="', escapeAttribute(checked(attribute.value)), '"');
  out.push('>');
  if (typeof element.content === 'string') {
    if (element.content === '') throw new Error(`element ${element.name} would be empty`);
    out.push(escapeText(checked(element.content)));
  } else {
    if (element.content.length === 0) throw new Error(`element ${element.name} would be empty`);
    for (const child of element.content) writeElement(child, scope, nowRendered, out);
  }
  out.push('</', element.name, '>');
}

// A name is written verbatim, so anything outside a conservative XML Name is a bug in the caller.
const xmlName = /^[A-Za-z_][\w.-]*(:[A-Za-z_][\w.-]*)?$/;

function checkName(name: string): void {
  if (!xmlName.test(name)) throw new Error(`not an XML name: ${JSON.stringify(name)}`);
}

function checked(value: string): string {
  if (!isXmlText(value)) throw new Error('text holds a character XML 1.0 does not allow');
  return value;
}
