// The shapes no e-CF or DGII message has, refused in one linear pass before any parser runs. Each is where a parser
// here costs more than linear or recurses: xmldom re-walks the document's children for every node it adds at the top
// level (40,000 processing instructions or comments after the root held the event loop for seconds; so do extra
// roots, which it reports and keeps parsing), it nests past an end tag that does not match instead of stopping,
// the tree readers and the canonicalizer recurse once per nesting level (10,000 levels overflowed the stack), and
// attribute lists are checked pairwise for duplicates. The bounds are far above what DGII's documents need:
// - nesting: DGII's deepest elements sit 6 levels down counting the root (ECF/Signature/SignedInfo/Reference/
//   Transforms/Transform; ECF/DetallesItems/Item/TablaSubDescuento/SubDescuento/MontoSubDescuento); 32 leaves room;
// - attributes: an element carries at most 4 (the root's xmlns, xmlns:xsi, xmlns:xsd; Reference's URI);
// - processing instructions: none but the XML declaration (DGII's documents carry none, and XMLDSig's URI=""
//   would have to decide what one outside the root means);
// - outside the root: whitespace and a few comments (a generator's banner), never a second root, text or thousands
//   of nodes.
// Along the way it checks what the bounds rely on, the way any parser would refuse it: every end tag closes the
// element open at that point, every comment, CDATA section, processing instruction and tag ends, one root. It is
// not a parser otherwise: what else makes XML well-formed is the parsers' to say, on text this pass has bounded.

export const maxXmlDepth = 32;
export const maxXmlAttributes = 32;
export const maxCommentsOutsideRoot = 8;

/** `malformed`: not well-formed XML (what the parsers would refuse too), found while checking the bounds. */
export type XmlShapeKind = 'processing_instruction' | 'nesting' | 'attributes' | 'comments' | 'malformed';

export interface XmlShapeProblem {
  kind: XmlShapeKind;
  message: string;
  /** Where in the text the refused construct starts. */
  index: number;
}

const GT = 0x3e;
const LT = 0x3c;
const SLASH = 0x2f;
const QUESTION = 0x3f;
const BANG = 0x21;
const EQUALS = 0x3d;
const QUOTE = 0x22;
const APOSTROPHE = 0x27;

/** The first construct of `text` outside the bounds above, or undefined. Visits each character at most twice. */
export function xmlShapeProblem(text: string): XmlShapeProblem | undefined {
  const open: string[] = [];
  let commentsOutside = 0;
  let rootSeen = false;
  const refuse = (kind: XmlShapeKind, index: number, message: string): XmlShapeProblem => ({ kind, index, message });
  for (let from = 0; ;) {
    const at = text.indexOf('<', from);
    const textEnd = at === -1 ? text.length : at;
    if (open.length === 0 && !isWhitespace(text, from, textEnd))
      return refuse('malformed', from, 'There is text outside the root element.');
    if (at === -1) break;
    const next = text.charCodeAt(at + 1);
    let end: number;
    if (next === QUESTION) {
      if (at !== 0 || !/^<\?xml[ \t\r\n]/.test(text.slice(0, 6))) {
        return refuse(
          'processing_instruction',
          at,
          'A processing instruction is not allowed (only the XML declaration, at the very start).',
        );
      }
      end = endOf(text, '?>', at + 2);
    } else if (next === BANG) {
      if (text.startsWith('<!--', at)) {
        if (open.length === 0 && ++commentsOutside > maxCommentsOutsideRoot) {
          return refuse(
            'comments',
            at,
            `More than ${maxCommentsOutsideRoot} comments outside the root element are not allowed.`,
          );
        }
        end = endOf(text, '-->', at + 4);
      } else if (text.startsWith('<![CDATA[', at) && open.length > 0) {
        end = endOf(text, ']]>', at + 9);
      } else {
        // A markup declaration is refused by the screen before this pass; anything else here is not XML.
        return refuse('malformed', at, 'Markup that is not an element, a comment or CDATA inside the root.');
      }
    } else if (next === SLASH) {
      end = endOf(text, '>', at + 2);
      const name = text.slice(at + 2, end === -1 ? at + 2 : end - 1).trimEnd();
      if (open.pop() !== name)
        return refuse('malformed', at, `The end tag </${name}> does not close the element open there.`);
    } else {
      const tag = readStartTag(text, at + 1);
      end = tag.end;
      if (tag.attributes > maxXmlAttributes)
        return refuse('attributes', at, `An element with more than ${maxXmlAttributes} attributes is not allowed.`);
      if (open.length === 0) {
        if (rootSeen) return refuse('malformed', at, 'There is more than one root element.');
        rootSeen = true;
      }
      if (!tag.empty) {
        if (open.length === maxXmlDepth)
          return refuse('nesting', at, `Elements nested more than ${maxXmlDepth} levels deep are not allowed.`);
        open.push(tag.name);
      }
    }
    if (end === -1)
      return refuse('malformed', at, 'A tag, comment, CDATA section or processing instruction is never closed.');
    from = end;
  }
  if (open.length > 0)
    return refuse('malformed', text.length, `The element <${open[open.length - 1] ?? ''}> is never closed.`);
  if (!rootSeen) return refuse('malformed', 0, 'There is no root element.');
  return undefined;
}

function isWhitespace(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) return false;
  }
  return true;
}

/** The index just past the first `terminator` from `from`, or -1 when there is none. */
function endOf(text: string, terminator: string, from: number): number {
  const found = text.indexOf(terminator, from);
  return found === -1 ? -1 : found + terminator.length;
}

/** A start tag from just past its `<`: its name, where it ends (past `>`, -1 if never), `/>`, its attributes. */
function readStartTag(text: string, from: number): { name: string; end: number; empty: boolean; attributes: number } {
  let nameEnd = -1;
  let attributes = 0;
  let quote = 0;
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (quote !== 0) {
      if (code === quote) quote = 0;
      continue;
    }
    if (
      nameEnd === -1 &&
      (code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d || code === SLASH || code === GT)
    )
      nameEnd = i;
    if (code === QUOTE || code === APOSTROPHE) {
      quote = code;
    } else if (code === EQUALS) {
      attributes++;
    } else if (code === GT) {
      return { name: text.slice(from, nameEnd), end: i + 1, empty: text.charCodeAt(i - 1) === SLASH, attributes };
    } else if (code === LT) {
      // A `<` inside a tag: not XML.
      return { name: '', end: -1, empty: true, attributes };
    }
  }
  return { name: '', end: -1, empty: true, attributes };
}
