// One pass over screened XML in the compact form our writer and the DGII signers produce (no attributes below the
// root, no comments, no CDATA, no processing instructions, no empty-element tags, text escaped as C14N 1.0 writes
// it), giving what a receiver needs of it without a DOM: the root's content shaped as fast-xml-parser would give it
// (for parse-ecf.ts), and the offsets of the root and of its last child Signature (for the verifier's fast path,
// xmldsig/verify.ts). Why our own: a general parser (xmldom, fast-xml-parser) cost ~0.4 ms each on a 4 KB e-CF, and
// the receiver parsed every e-CF three times. Anything outside that form is not an error here: scanCompactXml
// answers undefined and the caller takes the general parsers, which judge it as before. So this code only has to
// be right about what it accepts: every document it accepts is well-formed XML, and its body (everything of the
// root but the Signature) is, byte for byte, its inclusive C14N 1.0 form.

/** Content shaped like fast-xml-parser's output (ignoreAttributes, no value parsing, no trimming): a leaf is its raw
 * text, a group maps child names to a value or, for a repeated child, an array; text between children is `#text`. */
export type CompactContent = string | CompactGroup;
export interface CompactGroup {
  [name: string]: CompactContent | CompactContent[];
}

export interface CompactXml {
  readonly text: string;
  readonly rootName: string;
  /** Offset of `<` of the root start tag, and just after its `>`. */
  readonly rootStart: number;
  readonly rootStartTagEnd: number;
  /** Offset just after the root end tag. */
  readonly rootEnd: number;
  /** The root's last child element when it is an unprefixed Signature: its text from `<` to just after `</Signature>`. */
  readonly signature: { start: number; end: number } | undefined;
  /** The root's content (the Signature, if any, as an empty group). */
  readonly content: CompactGroup;
}

const NAME = '[A-Za-z_][A-Za-z0-9_.-]*';
const DECLARATION =
  /<\?xml version=(["'])1\.0\1(?: encoding=(["'])(?:utf-8|UTF-8)\2)?(?: standalone=(["'])(?:yes|no)\3)?\?>/y;
const WHITESPACE = /[ \t\n]*/y;
// Only prefixed namespace declarations on the root (checked for C14N's order below): no default namespace, so no
// element of the body can be in the XMLDSig namespace, and no other attribute, whose order C14N would impose.
const ROOT_START = new RegExp(`<(${NAME})((?: xmlns:${NAME}="[^"&<\\t\\n\\r]+")*)>`, 'y');
const DECLARED_PREFIX = new RegExp(` xmlns:(${NAME})=`, 'g');
const START = new RegExp(`<(${NAME})>`, 'y');
const END = new RegExp(`</(${NAME})>`, 'y');
// Text as C14N writes it: no `<`, `>` or CR, `&` only in &amp; &lt; &gt; &#xD;, only characters XML allows (pairs
// of surrogates, never one alone). Another spelling is legal XML that C14N would write differently: not compact.
const TEXT =
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this pattern must exclude
  /(?:[^<>&\r\x00-\x08\x0B\x0C\x0E-\x1F\uD800-\uDFFF\uFFFE\uFFFF]|&(?:amp|lt|gt|#xD);|[\uD800-\uDBFF][\uDC00-\uDFFF])*/y;
const SIGNATURE_END = '</Signature>';

interface Frame {
  name: string;
  /** Offset just after the start tag's `>`. */
  contentStart: number;
  group: CompactGroup | undefined;
  text: string;
}

function add(group: CompactGroup, name: string, value: CompactContent): void {
  const existing = group[name];
  if (existing === undefined) group[name] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else group[name] = [existing, value];
}

function matchAt(pattern: RegExp, text: string, at: number): RegExpExecArray | null {
  pattern.lastIndex = at;
  return pattern.exec(text);
}

/** The compact reading of `text` (already screened: fiscal/xml/screen-untrusted-xml.ts), or undefined when not compact. */
export function scanCompactXml(text: string): CompactXml | undefined {
  let at = matchAt(DECLARATION, text, 0) === null ? 0 : DECLARATION.lastIndex;
  at = (matchAt(WHITESPACE, text, at), WHITESPACE.lastIndex);
  const rootStart = at;
  const root = matchAt(ROOT_START, text, at);
  if (root === null) return undefined;
  const rootName = root[1] as string;
  let previous = '';
  for (const [, prefix = ''] of (root[2] ?? '').matchAll(DECLARED_PREFIX)) {
    // C14N sorts declarations by prefix; xml and xmlns are never declared.
    if (prefix <= previous || prefix === 'xml' || prefix === 'xmlns') return undefined;
    previous = prefix;
  }
  const rootStartTagEnd = ROOT_START.lastIndex;
  // Created without a prototype: element names are the sender's, and `__proto__` must stay a plain key.
  const newGroup = (): CompactGroup => Object.create(null) as CompactGroup;
  const stack: Frame[] = [{ name: rootName, contentStart: rootStartTagEnd, group: undefined, text: '' }];
  /** The frame's group, made at its first child; the text before that child is the group's first `#text`. */
  const groupOf = (frame: Frame, childAt: number): CompactGroup => {
    if (frame.group === undefined) {
      frame.group = newGroup();
      frame.text = text.slice(frame.contentStart, childAt);
    }
    return frame.group;
  };
  let signature: { start: number; end: number } | undefined;
  at = rootStartTagEnd;
  for (;;) {
    const frame = stack[stack.length - 1] as Frame;
    const textStart = at;
    at = (matchAt(TEXT, text, at), TEXT.lastIndex);
    if (at > textStart) {
      // After the root's Signature, only whitespace may follow: it must stay its last child element.
      if (signature !== undefined && stack.length === 1 && !/^[ \t\n]*$/.test(text.slice(textStart, at)))
        return undefined;
      if (frame.group !== undefined) frame.text += text.slice(textStart, at);
    }
    if (text.charCodeAt(at) !== 0x3c) return undefined;
    if (text.charCodeAt(at + 1) === 0x2f) {
      const end = matchAt(END, text, at);
      if (end === null || end[1] !== frame.name) return undefined;
      stack.pop();
      const parent = stack[stack.length - 1];
      at = END.lastIndex;
      if (parent === undefined) {
        // A root of text alone is no group (fast-xml-parser gives a string): left to the general parser.
        const content = frame.group;
        if (content === undefined) return undefined;
        if (frame.text !== '') content['#text'] = frame.text;
        if (matchAt(WHITESPACE, text, at) === null || WHITESPACE.lastIndex !== text.length) return undefined;
        return { text, rootName, rootStart, rootStartTagEnd, rootEnd: at, signature, content };
      }
      // A leaf's value is its text, one run (no child broke it); a group also keeps what text it had, as `#text`.
      let value: CompactContent;
      if (frame.group === undefined) value = text.slice(frame.contentStart, end.index);
      else {
        value = frame.group;
        if (frame.text !== '') value['#text'] = frame.text;
      }
      add(parent.group as CompactGroup, frame.name, value);
      continue;
    }
    if (signature !== undefined && stack.length === 1) return undefined;
    if (stack.length === 1 && text.startsWith('<Signature', at) && (text[at + 10] === ' ' || text[at + 10] === '>')) {
      // Its inside (attributes, empty-element tags) is left to the verifier, which parses this slice.
      const close = text.indexOf(SIGNATURE_END, at);
      if (close === -1) return undefined;
      signature = { start: at, end: close + SIGNATURE_END.length };
      add(groupOf(frame, at), 'Signature', newGroup());
      at = signature.end;
      continue;
    }
    const start = matchAt(START, text, at);
    if (start === null) return undefined;
    groupOf(frame, at);
    at = START.lastIndex;
    stack.push({ name: start[1] as string, contentStart: at, group: undefined, text: '' });
  }
}
