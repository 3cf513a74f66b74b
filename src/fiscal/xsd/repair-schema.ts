// DGII validates with .NET, which tolerates what libxml2 refuses. Each repair here fixes one defect listed in
// ../shared/dgii/README.md ("Known defects of the official files") in memory, and is written to change nothing
// else: it reads start tags and attribute values, not free text, and leaves a legal construct alone.

export interface RepairedSchema {
  text: string;
  /** One line per change, naming the file, the line and what changed. */
  repairs: string[];
}

// A start tag with its attributes, quoted values allowed to hold `>`.
const startTag = /<([\w.-]+:)?([\w.-]+)((?:\s+[\w.:-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)(\s*\/?)>/g;
const attribute = /(\s+)([\w.:-]+)(\s*=\s*)(["'])(.*?)\4/g;

// Declarations and references whose names .NET trims but libxml2 takes literally (defect 1).
const declarationTags = new Set([
  'element',
  'attribute',
  'simpleType',
  'complexType',
  'group',
  'attributeGroup',
  'restriction',
  'extension',
  'list',
  'union',
]);
const nameAttributes = new Set(['name', 'type', 'base', 'ref', 'itemType']);

export function repairSchema(fileName: string, text: string): RepairedSchema {
  const repairs: string[] = [];
  const lineAt = (offset: number) => 1 + countNewlines(text, offset);
  const repaired = text.replace(
    startTag,
    (tag: string, prefix: string | undefined, local: string, attributes: string, end: string, offset: number) => {
      const isPattern = local === 'pattern';
      if (!isPattern && !declarationTags.has(local)) return tag;
      const fixed = attributes.replace(
        attribute,
        (whole: string, space: string, name: string, equals: string, quote: string, value: string) => {
          const change = isPattern
            ? name === 'value'
              ? repairPattern(value)
              : undefined
            : nameAttributes.has(name)
              ? trimName(value)
              : undefined;
          if (change === undefined) return whole;
          repairs.push(`${fileName}:${lineAt(offset)}: ${change.note}`);
          return `${space}${name}${equals}${quote}${change.value}${quote}`;
        },
      );
      return `<${prefix ?? ''}${local}${fixed}${end}>`;
    },
  );
  return { text: repaired, repairs };
}

interface Change {
  value: string;
  note: string;
}

// Defect 1: `name=" IndicadorServicioTodoIncluidoType"` in e-CF 31 never matches its references.
function trimName(value: string): Change | undefined {
  const trimmed = value.trim();
  return trimmed === value ? undefined : { value: trimmed, note: `trimmed the name "${value}" to "${trimmed}"` };
}

// Defects 2 and 3: `(?:` groups (RFCE 32, ACECF) and `^...$` anchors (e-CF 33/34 Alfa20Type), which XSD regular
// expressions do not have: `(?` is a syntax error, and `^`/`$` are literal characters (patterns are implicitly
// anchored), so every normal value fails.
function repairPattern(value: string): Change | undefined {
  const notes: string[] = [];
  let pattern = value;
  const groups = replaceNonCapturingGroups(pattern);
  if (groups.count > 0) {
    pattern = groups.pattern;
    notes.push(`replaced ${groups.count} "(?:" with "(" in the pattern "${value}"`);
  }
  if (isAnchoredBothEnds(pattern)) {
    pattern = pattern.slice(1, -1);
    notes.push(`dropped the "^" and "$" anchors of the pattern "${value}"`);
  }
  return notes.length === 0 ? undefined : { value: pattern, note: notes.join('; ') };
}

/** `(?:` outside a character class and not escaped becomes `(`; everything else is copied as written. */
function replaceNonCapturingGroups(pattern: string): { pattern: string; count: number } {
  let out = '';
  let count = 0;
  let classDepth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern.charAt(i);
    if (char === '\\') {
      out += pattern.slice(i, i + 2);
      i++;
    } else if (char === '[') {
      classDepth++;
      out += char;
    } else if (char === ']' && classDepth > 0) {
      classDepth--;
      out += char;
    } else if (classDepth === 0 && pattern.startsWith('(?:', i)) {
      out += '(';
      count++;
      i += 2;
    } else {
      out += char;
    }
  }
  return { pattern: out, count };
}

// Only both anchors together: a lone literal `^` or `$` at one end is legal XSD and may be meant.
function isAnchoredBothEnds(pattern: string): boolean {
  if (pattern.length < 2 || !pattern.startsWith('^') || !pattern.endsWith('$')) return false;
  let backslashes = 0;
  for (let i = pattern.length - 2; i >= 0 && pattern.charAt(i) === '\\'; i--) backslashes++;
  return backslashes % 2 === 0;
}

function countNewlines(text: string, end: number): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) count++;
  return count;
}
