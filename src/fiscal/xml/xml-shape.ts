// The shapes no e-CF or DGII message has, refused in one linear pass before any parser runs. Each is where a parser
// here costs more than linear or recurses: xmldom re-walks the document's children for every node it adds at the top
// level (40,000 processing instructions or comments after the root held the event loop for seconds), the tree readers
// and the canonicalizer recurse once per nesting level (10,000 levels overflowed the stack), and attribute lists are
// checked pairwise for duplicates. The bounds are far above what DGII's documents need:
// - nesting: the deepest path in DGII's schemas is 6 elements below the root (ECF/Signature/SignedInfo/Reference/
//   Transforms/Transform, ECF/DetallesItems/Item/TablaSubDescuento/SubDescuento/...); 32 leaves room for any signer;
// - attributes: an element carries at most 4 (the root's xmlns, xmlns:xsi, xmlns:xsd; Reference's URI);
// - processing instructions: none but the XML declaration (DGII's documents carry none, and XMLDSig's URI=""
//   would have to decide what one outside the root means: verify.ts refused those already);
// - outside the root: whitespace and a few comments (a generator's banner), never thousands of nodes.
// This is not a parser: well-formed or not is the parsers' to say, on text this pass has bounded.

export const maxXmlDepth = 32;
export const maxXmlAttributes = 32;
export const maxCommentsOutsideRoot = 8;

export type XmlShapeKind = 'processing_instruction' | 'nesting' | 'attributes' | 'comments';

export interface XmlShapeProblem {
  kind: XmlShapeKind;
  message: string;
  /** Where in the text the refused construct starts. */
  index: number;
}

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const QUESTION = 0x3f;
const BANG = 0x21;
const EQUALS = 0x3d;
const QUOTE = 0x22;
const APOSTROPHE = 0x27;

/** The first construct of `text` outside the bounds above, or undefined. Visits each character at most twice. */
export function xmlShapeProblem(text: string): XmlShapeProblem | undefined {
  let depth = 0;
  let commentsOutside = 0;
  for (let at = text.indexOf('<'); at !== -1; ) {
    const next = text.charCodeAt(at + 1);
    if (next === QUESTION) {
      if (at !== 0 || !/^<\?xml[ \t\r\n]/.test(text.slice(0, 6))) {
        return { kind: 'processing_instruction', index: at, message: 'A processing instruction is not allowed (only the XML declaration, at the very start).' };
      }
      at = after(text, '?>', at + 2);
    } else if (next === BANG) {
      if (text.startsWith('<!--', at)) {
        if (depth === 0 && ++commentsOutside > maxCommentsOutsideRoot) {
          return { kind: 'comments', index: at, message: `More than ${maxCommentsOutsideRoot} comments outside the root element are not allowed.` };
        }
        at = after(text, '-->', at + 4);
      } else if (text.startsWith('<![CDATA[', at)) {
        at = after(text, ']]>', at + 9);
      } else {
        // A markup declaration: the screen refuses it before this pass; malformed otherwise, for the parser to say.
        at = after(text, '>', at + 2);
      }
    } else if (next === SLASH) {
      depth--;
      at = after(text, '>', at + 2);
    } else {
      const tag = readStartTag(text, at + 1);
      if (tag.attributes > maxXmlAttributes) {
        return { kind: 'attributes', index: at, message: `An element with more than ${maxXmlAttributes} attributes is not allowed.` };
      }
      if (!tag.empty && ++depth > maxXmlDepth) {
        return { kind: 'nesting', index: at, message: `Elements nested more than ${maxXmlDepth} levels deep are not allowed.` };
      }
      at = tag.end === -1 ? -1 : text.indexOf('<', tag.end);
    }
  }
  return undefined;
}

/** The index of the next `<` after the first `terminator` from `from`, or -1 when either is missing. */
function after(text: string, terminator: string, from: number): number {
  const end = text.indexOf(terminator, from);
  return end === -1 ? -1 : text.indexOf('<', end + terminator.length);
}

/** A start tag from just past its `<`: where it ends (past `>`, -1 if never), whether `/>` closes it, its attributes. */
function readStartTag(text: string, from: number): { end: number; empty: boolean; attributes: number } {
  let attributes = 0;
  let quote = 0;
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (quote !== 0) {
      if (code === quote) quote = 0;
    } else if (code === QUOTE || code === APOSTROPHE) {
      quote = code;
    } else if (code === EQUALS) {
      attributes++;
    } else if (code === GT) {
      return { end: i + 1, empty: text.charCodeAt(i - 1) === SLASH, attributes };
    } else if (code === LT) {
      // Malformed (a `<` inside a tag): stop here and let the parser refuse it.
      return { end: i, empty: true, attributes };
    }
  }
  return { end: -1, empty: true, attributes };
}
