// The one typeface of the RI: DejaVu Sans Condensed, embedded (PDF/A wants every font embedded, and pdfkit's
// standard fonts garble anything outside WinAnsi: research/printed-representation.md §3). The files come from the
// dejavu-fonts-ttf package, so CI machines need no system fonts. Parsing a TTF costs more than rendering a page,
// so each file is parsed once per process and the parsed fontkit Font is handed to pdfkit as is.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { create, type Font, type GlyphRun } from 'fontkit';

export type FontWeight = 'regular' | 'bold' | 'boldOblique';

const files: Readonly<Record<FontWeight, string>> = {
  regular: 'DejaVuSansCondensed.ttf',
  bold: 'DejaVuSansCondensed-Bold.ttf',
  boldOblique: 'DejaVuSansCondensed-BoldOblique.ttf',
};

let parsed: Readonly<Record<FontWeight, Font>> | undefined;

function parse(weight: FontWeight): Font {
  const directory = join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
  const font = create(readFileSync(join(directory, files[weight])));
  if (!('layout' in font)) throw new Error(`${files[weight]} is a font collection, not a font`);
  return font;
}

/** The parsed fonts, read on first use. */
export function fonts(): Readonly<Record<FontWeight, Font>> {
  parsed ??= { regular: parse('regular'), bold: parse('bold'), boldOblique: parse('boldOblique') };
  return parsed;
}

/** A text's width in points at a size, as pdfkit will set it. */
export type Measure = (text: string, size: number, weight: FontWeight) => number;

// Shaping a word (fontkit's OpenType lookups) costs 20-50 µs, more than setting it. pdfkit lays text out one
// chunk at a time (each chunk ending at a space, the space included) and caches the runs per document only. Here
// the runs are shaped once per process, exactly as pdfkit's layoutRun() makes them (positions in thousandths of
// an em, advanceWidth added), and the painter hands this same cache to pdfkit: widths measured for the layout are
// the widths pdfkit sets, and no word is shaped twice. pdfkit reads cached runs without changing them. Amounts make
// many chunks unique, so the cache starts afresh past a bound (about 1 KB a run).
type Runs = Record<string, GlyphRun>;
const runLimit = 20_000;
let runs: Record<FontWeight, Runs> = freshRuns();
let runCount = 0;

function freshRuns(): Record<FontWeight, Runs> {
  return {
    regular: Object.create(null) as Runs,
    bold: Object.create(null) as Runs,
    boldOblique: Object.create(null) as Runs,
  };
}

/** The shared run cache of a weight, for pdfkit's EmbeddedFont.layoutCache. */
export function shapedRuns(weight: FontWeight): Runs {
  return runs[weight];
}

function shaped(weight: FontWeight, chunk: string): GlyphRun {
  const cached = runs[weight][chunk];
  if (cached !== undefined) return cached;
  if (runCount >= runLimit) {
    runs = freshRuns();
    runCount = 0;
  }
  const font = fonts()[weight];
  const scale = 1000 / font.unitsPerEm;
  const run = font.layout(chunk);
  run.positions.forEach((position, index) => {
    const scaled = position as unknown as Record<string, number>;
    for (const key in scaled) scaled[key] = (scaled[key] ?? 0) * scale;
    scaled['advanceWidth'] = (run.glyphs[index]?.advanceWidth ?? 0) * scale;
  });
  runs[weight][chunk] = run;
  runCount++;
  return run;
}

export const measure: Measure = (text, size, weight) => {
  let thousandths = 0;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (character === ' ' || character === '\t') {
      thousandths += shaped(weight, text.slice(start, index + 1)).advanceWidth;
      start = index + 1;
    }
  }
  if (start < text.length) thousandths += shaped(weight, text.slice(start)).advanceWidth;
  return (thousandths * size) / 1000;
};

// Latin-1 and ASCII are all in DejaVu: most text needs no per-character lookup.
const coveredAtOnce = /^[\x20-\x7e\u00a0-\u00ff]*$/;
const glyphKnown = new Map<number, boolean>();

/** In every weight: a character set in bold must not fall back to the .notdef box either. */
function hasGlyph(codePoint: number): boolean {
  let known = glyphKnown.get(codePoint);
  if (known === undefined) {
    const all = fonts();
    known =
      all.regular.hasGlyphForCodePoint(codePoint) &&
      all.bold.hasGlyphForCodePoint(codePoint) &&
      all.boldOblique.hasGlyphForCodePoint(codePoint);
    glyphKnown.set(codePoint, known);
  }
  return known;
}

/**
 * The text as the font can print it: line breaks and tabs become spaces, other control characters go, and every
 * code point without a glyph becomes '?' (an emoji prints as '?', never as a garbled box), its code point added
 * to `replaced`.
 */
export function printable(text: string, replaced: Set<number>): string {
  if (coveredAtOnce.test(text)) return text;
  let result = '';
  for (const character of text) {
    const codePoint = character.codePointAt(0) ?? 0;
    if (codePoint === 0x09 || codePoint === 0x0a || codePoint === 0x0d) result += ' ';
    else if (codePoint < 0x20 || (codePoint >= 0x7f && codePoint < 0xa0)) continue;
    else if (hasGlyph(codePoint)) result += character;
    else {
      replaced.add(codePoint);
      result += '?';
    }
  }
  return result;
}

/** U+1F9FE: how a replaced code point is named in logs and in RenderedPdf.replacedCharacters. */
export function codePointName(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}
