import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { crc32, deflateSync } from 'node:zlib';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { logoLimits, normaliseLogo, type NormalisedLogo } from './logo.js';

/** RGBA pixels with every channel varying, alpha included, so a lost or altered pixel shows. */
function pixels(width: number, height: number): Buffer {
  const data = Buffer.alloc(width * height * 4);
  for (let i = 0; i < data.length; i++) data[i] = (i * 31 + (i >> 7)) & 0xff;
  return data;
}

function pngOf(width: number, height: number, data = pixels(width, height)): Buffer {
  const png = new PNG({ width, height });
  png.data = data;
  return PNG.sync.write(png);
}

/** A transparent image: small in bytes however large in pixels. */
function blankPngOf(width: number, height: number): Buffer {
  return pngOf(width, height, Buffer.alloc(width * height * 4));
}

function chunk(type: string, body: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), body]);
  const framed = Buffer.alloc(typed.length + 8);
  framed.writeUInt32BE(body.length, 0);
  typed.copy(framed, 4);
  framed.writeUInt32BE(crc32(typed), typed.length + 4);
  return framed;
}

/** An 8-bit RGBA PNG in Adam7 interlace, which pngjs reads but does not write. */
function interlacedPngOf(width: number, height: number, data: Buffer): Buffer {
  const passes = [
    [0, 0, 8, 8],
    [4, 0, 8, 8],
    [0, 4, 4, 8],
    [2, 0, 4, 4],
    [0, 2, 2, 4],
    [1, 0, 2, 2],
    [0, 1, 1, 2],
  ] as const;
  const rows: Buffer[] = [];
  for (const [x0, y0, dx, dy] of passes) {
    for (let y = y0; y < height; y += dy) {
      if (x0 >= width) continue;
      const row = [0]; // filter type None
      for (let x = x0; x < width; x += dx) row.push(...data.subarray((y * width + x) * 4, (y * width + x) * 4 + 4));
      rows.push(Buffer.from(row));
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 1], 8); // depth 8, RGBA, deflate, filtering 0, interlace Adam7
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function accepted(bytes: Buffer): NormalisedLogo {
  const result = normaliseLogo(bytes);
  assert.ok(result.ok, result.ok ? '' : result.message);
  return result.value;
}

/** What RGBA pixels look like printed: each over white paper, opaque (alpha a: c·a/255 + 255·(1 − a/255)). */
function onPaper(rgba: Buffer): Buffer {
  const out = Buffer.from(rgba);
  for (let i = 0; i < out.length; i += 4) {
    const alpha = rgba[i + 3] ?? 255;
    for (let c = 0; c < 3; c++) out[i + c] = Math.round(((rgba[i + c] ?? 0) * alpha + 255 * (255 - alpha)) / 255);
    out[i + 3] = 255;
  }
  return out;
}

/** The stored PNG: 8-bit RGB, not interlaced, only IHDR, IDAT and IEND; returns its pixels (read back as RGBA). */
function assertNormalised(logo: NormalisedLogo, width: number, height: number): Buffer {
  const { png } = logo;
  assert.deepEqual([png[24], png[25], png[28]], [8, 2, 0], 'bit depth 8, colour type 2 (RGB), no interlace');
  const chunkTypes: string[] = [];
  for (let at = 8; at < png.length; at += 12 + png.readUInt32BE(at))
    chunkTypes.push(png.toString('latin1', at + 4, at + 8));
  assert.deepEqual(chunkTypes, ['IHDR', 'IDAT', 'IEND']);
  assert.equal(logo.sha256, createHash('sha256').update(png).digest('hex'));
  const read = PNG.sync.read(png);
  assert.deepEqual([read.width, read.height, logo.width, logo.height], [width, height, width, height]);
  return read.data;
}

describe('normaliseLogo', () => {
  it('keeps an 8-bit PNG pixel for pixel, dropping its gamma chunk', () => {
    const png = new PNG({ width: 40, height: 20 });
    png.data = pixels(40, 20);
    png.gamma = 0.45455;
    const input = PNG.sync.write(png);
    assert.ok(input.includes('gAMA'));
    assert.deepEqual(assertNormalised(accepted(input), 40, 20), onPaper(pixels(40, 20)));
  });

  it('flattens transparency onto white paper: clear pixels white, opaque ones as they were', () => {
    const data = Buffer.alloc(16 * 16 * 4);
    for (let i = 0; i < data.length; i += 4) data.set(i < data.length / 2 ? [10, 20, 30, 0] : [10, 20, 30, 255], i);
    const read = assertNormalised(accepted(pngOf(16, 16, data)), 16, 16);
    assert.deepEqual([...read.subarray(0, 4)], [255, 255, 255, 255]);
    assert.deepEqual([...read.subarray(read.length - 4)], [10, 20, 30, 255]);
  });

  it('writes an interlaced PNG without interlace, pixel for pixel', () => {
    const input = interlacedPngOf(37, 19, pixels(37, 19));
    assert.equal(input[28], 1);
    assert.deepEqual(assertNormalised(accepted(input), 37, 19), onPaper(pixels(37, 19)));
  });

  it('brings a 16-bit PNG down to 8 bits a channel', () => {
    const eight = pixels(24, 16);
    const sixteen = Buffer.from(Uint16Array.from(eight, (value) => value * 257).buffer);
    const png = new PNG({ width: 24, height: 16 });
    png.data = sixteen;
    const input = PNG.sync.write(png, { bitDepth: 16, colorType: 6, inputHasAlpha: true });
    assert.equal(input[24], 16);
    assert.deepEqual(assertNormalised(accepted(input), 24, 16), onPaper(eight));
  });

  it('turns a JPEG into an opaque PNG of the same size', () => {
    const input = jpeg.encode({ width: 64, height: 32, data: pixels(64, 32) }, 90).data;
    const data = assertNormalised(accepted(input), 64, 32);
    assert.ok(data.every((value, i) => i % 4 !== 3 || value === 255));
  });

  it('gives the same bytes for the same input, every time', () => {
    for (const input of [pngOf(50, 30), interlacedPngOf(50, 30, pixels(50, 30))]) {
      assert.deepEqual(accepted(input), accepted(Buffer.from(input)));
    }
    // The same picture in either PNG layout is the same logo.
    assert.equal(accepted(pngOf(50, 30)).sha256, accepted(interlacedPngOf(50, 30, pixels(50, 30))).sha256);
  });

  it('accepts the limits themselves: 1200 × 600 and 16 × 16', () => {
    assert.equal(accepted(blankPngOf(logoLimits.maxWidth, logoLimits.maxHeight)).width, 1200);
    assert.equal(accepted(pngOf(16, 16)).height, 16);
  });

  const jpegBytes = jpeg.encode({ width: 64, height: 32, data: pixels(64, 32) }, 90).data;
  const refused: [string, Buffer, string, RegExp][] = [
    ['a GIF', Buffer.from('GIF89a\x10\x00\x10\x00\x00\x00\x00;', 'latin1'), 'logo_media_type', /PNG or a JPEG/],
    ['text', Buffer.from('not an image at all'), 'logo_media_type', /PNG or a JPEG/],
    ['an empty file', Buffer.alloc(0), 'logo_media_type', /PNG or a JPEG/],
    ['a truncated PNG', pngOf(40, 20).subarray(0, 60), 'logo_unreadable', /readable PNG/],
    ['a PNG with a damaged IDAT', damaged(pngOf(40, 20), 45), 'logo_unreadable', /readable PNG/],
    ['a PNG signature alone', pngOf(40, 20).subarray(0, 8), 'logo_unreadable', /readable PNG/],
    ['a truncated JPEG', jpegBytes.subarray(0, 200), 'logo_unreadable', /readable JPEG/],
    ['2000 × 100 px', blankPngOf(2000, 100), 'logo_dimensions', /2000 × 100 px; at most 1200 × 600/],
    ['1200 × 601 px', blankPngOf(1200, 601), 'logo_dimensions', /1200 × 601 px; at most 1200 × 600/],
    [
      'a JPEG of 1300 × 20 px',
      jpeg.encode({ width: 1300, height: 20, data: Buffer.alloc(1300 * 20 * 4) }).data,
      'logo_dimensions',
      /1300 × 20/,
    ],
    ['15 × 40 px', pngOf(15, 40), 'logo_dimensions', /15 × 40 px; at least 16 × 16/],
    ['over 256 KiB', Buffer.concat([pngOf(16, 16), Buffer.alloc(256 * 1024)]), 'logo_too_heavy', /at most 262144/],
  ];
  for (const [name, bytes, code, message] of refused) {
    it(`refuses ${name} with ${code}`, () => {
      const result = normaliseLogo(bytes);
      assert.ok(!result.ok, 'refused');
      assert.equal(result.code, code);
      assert.match(result.message, message);
    });
  }
});

function damaged(bytes: Buffer, at: number): Buffer {
  const copy = Buffer.from(bytes);
  copy[at] = (copy[at] ?? 0) ^ 0xff;
  return copy;
}
