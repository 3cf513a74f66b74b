import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import jsqr from 'jsqr';
import { timbreUrl } from '../../fiscal/timbre-url.js';
import { qrMatrix, type QrMatrix } from './qr.js';

// jsqr is CommonJS with its function also on `default`, which is what its types describe.
const jsQR = jsqr.default;

/** The matrix as the painter draws it (from its runs), with the 4-module quiet zone, in an RGBA buffer. */
function pixels(matrix: QrMatrix, scale: number): { data: Uint8ClampedArray; side: number } {
  const side = (matrix.size + 8) * scale;
  const data = new Uint8ClampedArray(side * side * 4).fill(255);
  for (const run of matrix.runs)
    for (let row = 0; row < scale; row++)
      for (let column = 0; column < run.length * scale; column++) {
        const x = (run.column + 4) * scale + column;
        const y = (run.row + 4) * scale + row;
        data.fill(0, (y * side + x) * 4, (y * side + x) * 4 + 3);
      }
  return { data, side };
}

function decoded(url: string): string | undefined {
  const { data, side } = pixels(qrMatrix(url), 4);
  return jsQR(data, side, side)?.data;
}

// A long e-CF URL: the certecf segment, an 11-digit buyer id (cédula), the largest MontoTotal, a code whose
// '+' and '/' are percent-encoded.
const ecfUrl = timbreUrl('CERT', {
  TipoeCF: '31',
  RNCEmisor: '131987656',
  RNCComprador: '40212345678',
  eNCF: 'E310000000123',
  FechaEmision: '15-11-2026',
  MontoTotal: '9999999999999999.99',
  FechaHoraFirma: '15-11-2026 10:31:07',
  CodigoSeguridad: '+/gG/+',
});
const fcUrl = timbreUrl('TEST', {
  TipoeCF: '32',
  RNCEmisor: '131987656',
  eNCF: 'E320000000123',
  FechaEmision: '15-11-2026',
  MontoTotal: '1430.00',
  FechaHoraFirma: '15-11-2026 10:31:07',
  CodigoSeguridad: 'rkBnXD',
});

describe('QR matrix', () => {
  it('decodes to the exact e-CF URL of ~230 characters (version 10 or 11 at level M, not DGII’s 8)', () => {
    assert.ok(ecfUrl.length >= 225, `${ecfUrl.length} characters`);
    assert.equal(decoded(ecfUrl), ecfUrl);
    const matrix = qrMatrix(ecfUrl);
    assert.ok(matrix.version >= 10 && matrix.version <= 11, `version ${matrix.version}`);
    assert.equal(matrix.size, 17 + 4 * matrix.version);
  });

  it('decodes to the exact ConsultaTimbreFC URL', () => {
    assert.match(fcUrl, /^https:\/\/fc\.dgii\.gov\.do\/testecf\/ConsultaTimbreFC\?/);
    assert.equal(decoded(fcUrl), fcUrl);
  });

  it('merges each row’s dark modules into runs that cover exactly the dark modules', () => {
    const matrix = qrMatrix(fcUrl);
    const covered = new Uint8Array(matrix.size * matrix.size);
    for (const run of matrix.runs)
      for (let i = 0; i < run.length; i++) covered[run.row * matrix.size + run.column + i]! += 1;
    assert.deepEqual(covered, matrix.modules);
    const row = matrix.runs.filter((run) => run.row === 0);
    assert.ok(
      row.every((run, i) => i === 0 || run.column > row[i - 1]!.column + row[i - 1]!.length),
      'runs are maximal',
    );
  });
});
