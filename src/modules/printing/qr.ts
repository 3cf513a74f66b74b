// The QR of the RI as a module matrix, drawn by the painter as vector rectangles. Why this way:
// - `qrcode` segments the URL optimally (byte, alphanumeric and numeric runs mixed), which keeps the symbol small,
//   and it was the fastest encoder measured (1.8-3 ms per URL);
// - vectors are resolution-independent and deterministic, and cheap: the peers' PNG QR (qrcode.toBuffer) made a
//   one-page A4 about 3x slower in the same rounds (bench/printing.bench.ts; 40 against 123 PDFs/s here);
// - DGII's "versión 8" cannot hold an e-CF URL (205-235 characters need v9 at L, v10-11 at M; v8 holds 192 bytes
//   at L), so the version is left to the encoder. Level M, as the peers use: DGII names none.
// The matrix is computed once per document and repeated on every page.
import QRCode from 'qrcode';

/** A horizontal run of dark modules in one row. */
export interface QrRun {
  row: number;
  column: number;
  length: number;
}

export interface QrMatrix {
  /** Modules per side, without the quiet zone. */
  size: number;
  version: number;
  /** Row-major, 1 = dark. */
  modules: Uint8Array;
  /** The dark modules merged into runs: one rectangle each, all filled at once. */
  runs: readonly QrRun[];
}

export function qrMatrix(url: string): QrMatrix {
  const code = QRCode.create(url, { errorCorrectionLevel: 'M' });
  const { size, data } = code.modules;
  const modules = Uint8Array.from(data, (bit) => (bit ? 1 : 0));
  const runs: QrRun[] = [];
  for (let row = 0; row < size; row++) {
    let column = 0;
    while (column < size) {
      if (modules[row * size + column] === 0) {
        column++;
        continue;
      }
      const start = column;
      while (column < size && modules[row * size + column] === 1) column++;
      runs.push({ row, column: start, length: column - start });
    }
  }
  return { size, version: code.version, modules, runs };
}
