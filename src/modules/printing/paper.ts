// The sheets and rolls the RI is printed on, in PDF points (1/72 in). A4 and Letter ("carta", the usual office
// paper in the Dominican Republic) carry DGII's block layout; the rolls carry the continuous layout of model 2.3.

export type PaperFormat = 'a4' | 'carta' | '80mm' | '58mm';

export const paperFormats: readonly PaperFormat[] = ['a4', 'carta', '80mm', '58mm'];

export const pointsPerMm = 72 / 25.4;

export function mm(millimetres: number): number {
  return millimetres * pointsPerMm;
}

export interface SheetGeometry {
  kind: 'sheet';
  width: number;
  height: number;
  /** Informe Técnico §17.2.3: the QR starts at least 2 cm from the sheet edge, so the content does too. */
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export interface RollGeometry {
  kind: 'roll';
  width: number;
  /** The printable band, centred: the head of an 80 mm printer prints 72 mm (576 dots at 203 dpi). */
  printable: number;
  top: number;
  bottom: number;
}

export type PaperGeometry = SheetGeometry | RollGeometry;

function sheet(width: number, height: number): SheetGeometry {
  return { kind: 'sheet', width, height, left: mm(20), right: mm(15), top: mm(12), bottom: mm(10) };
}

export const paperGeometry: Readonly<Record<PaperFormat, PaperGeometry>> = {
  a4: sheet(595.28, 841.89),
  carta: sheet(612, 792),
  '80mm': { kind: 'roll', width: 226.77, printable: mm(72), top: mm(4), bottom: mm(8) },
  // Best effort: with 48 mm printable even a 22 mm QR, centred, sits about 18 mm from the side edges, so the 2 cm
  // rule of the Informe Técnico cannot hold on 58 mm paper (research/printed-representation.md §1.6).
  '58mm': { kind: 'roll', width: 164.41, printable: mm(48), top: mm(4), bottom: mm(8) },
};
