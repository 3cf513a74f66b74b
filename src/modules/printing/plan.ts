// What the layout hands the painter: pages of positioned boxes in PDF points, origin top left, y growing down.
// Plain data, so the layout's geometry can be tested without any PDF tool.
import type { FontWeight, Measure } from './fonts.js';
import type { PaperFormat } from './paper.js';
import type { QrMatrix } from './qr.js';

export type Align = 'left' | 'right' | 'center';

/** One line of text, set inside [x, x + width] by its alignment; y is the top of the line (the font's ascent). */
export interface TextBox {
  kind: 'text';
  text: string;
  x: number;
  y: number;
  width: number;
  align: Align;
  size: number;
  weight: FontWeight;
}

/** A horizontal rule. */
export interface RuleBox {
  kind: 'rule';
  x: number;
  y: number;
  width: number;
  dashed: boolean;
}

/** The QR: `size` points square at (x, y), with `clear` points around it where nothing else is drawn. */
export interface QrBox {
  kind: 'qr';
  x: number;
  y: number;
  size: number;
  clear: number;
}

export interface LogoBox {
  kind: 'logo';
  x: number;
  y: number;
  width: number;
  height: number;
}

export type Box = TextBox | RuleBox | QrBox | LogoBox;

export interface PlanPage {
  width: number;
  height: number;
  boxes: Box[];
}

export interface Plan {
  format: PaperFormat;
  pages: PlanPage[];
  /** Computed once per document; every page's QrBox draws it. */
  qr: QrMatrix;
}

export const lineSpacing = 1.22;

export function lineHeight(size: number): number {
  return size * lineSpacing;
}

/** Text style of a run: size and weight. */
export interface Style {
  size: number;
  weight: FontWeight;
}

/**
 * Greedy word wrap by measured width; a word wider than the line is cut between characters. `measure` sums
 * "word " chunks as pdfkit sets them, so a line's width grows word by word without measuring it again.
 */
export function wrap(text: string, width: number, style: Style, measure: Measure): string[] {
  const widthOf = (candidate: string) => measure(candidate, style.size, style.weight);
  if (!text.includes('  ') && text.trim() === text && widthOf(text) <= width) return text === '' ? [] : [text];
  const lines: string[] = [];
  let current = '';
  let currentWidth = 0;
  let last = '';
  for (const word of text.split(' ')) {
    if (word === '') continue;
    if (current !== '') {
      const candidateWidth = currentWidth - widthOf(last) + widthOf(`${last} `) + widthOf(word);
      if (candidateWidth <= width) {
        current = `${current} ${word}`;
        currentWidth = candidateWidth;
        last = word;
        continue;
      }
      lines.push(current);
    }
    let rest = word;
    while (widthOf(rest) > width) {
      const characters = Array.from(rest);
      let cut = 1;
      while (cut < characters.length && widthOf(characters.slice(0, cut + 1).join('')) <= width) cut++;
      lines.push(characters.slice(0, cut).join(''));
      rest = characters.slice(cut).join('');
    }
    current = rest;
    currentWidth = widthOf(rest);
    last = rest;
  }
  if (current !== '') lines.push(current);
  return lines;
}

/** Appends the wrapped lines of `text` from y down and returns the y below them. */
export function paragraph(
  boxes: Box[],
  text: string,
  at: { x: number; y: number; width: number; align: Align },
  style: Style,
  measure: Measure,
): number {
  let y = at.y;
  for (const line of wrap(text, at.width, style, measure)) {
    boxes.push({ kind: 'text', text: line, x: at.x, y, width: at.width, align: at.align, ...style });
    y += lineHeight(style.size);
  }
  return y;
}

/** Moves boxes down by dy (a block laid out at 0 placed on a page). */
export function shifted(boxes: readonly Box[], dy: number): Box[] {
  return boxes.map((box) => ({ ...box, y: box.y + dy }));
}

/** 1234567.50 → 1,234,567.50: amounts as the XML writes them, grouped by thousands for reading. */
export function grouped(amount: string): string {
  const match = /^(-?)(\d+)(\.\d+)?$/.exec(amount);
  if (match === null) return amount;
  const whole = (match[2] ?? '').replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${match[1] ?? ''}${whole}${match[3] ?? ''}`;
}
