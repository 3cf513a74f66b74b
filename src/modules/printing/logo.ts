// The company logo, already normalised at upload (8-bit, non-interlaced PNG, at most 1200 × 600 px).
import { PNG } from 'pngjs';

const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

interface PngHeader {
  width: number;
  height: number;
  colourType: number;
  interlaced: boolean;
  transparency: boolean;
}

function header(png: Buffer): PngHeader | null {
  if (png.length < 33 || !png.subarray(0, 8).equals(signature) || png.toString('latin1', 12, 16) !== 'IHDR')
    return null;
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  if (width === 0 || height === 0) return null;
  return {
    width,
    height,
    colourType: png[25] ?? 0,
    interlaced: png[28] === 1,
    transparency: png.includes('tRNS', 33, 'latin1'),
  };
}

/** Pixel size from the IHDR chunk, or null when the bytes are not a PNG (then no logo is drawn). */
export function pngSize(png: Buffer): { width: number; height: number } | null {
  const found = header(png);
  return found === null ? null : { width: found.width, height: found.height };
}

/**
 * The logo as pdfkit can embed it without waiting: pdfkit inflates PNGs with an alpha channel, a tRNS chunk or
 * interlacing through zlib's callback API, which would make rendering asynchronous. Such logos are flattened on
 * white (the paper) and written back as plain RGB once per logo; plain RGB, grey or palette PNGs pass as they are.
 */
export function embeddableLogo(png: Buffer): Buffer | null {
  const found = header(png);
  if (found === null) return null;
  const plain = found.colourType === 0 || found.colourType === 2 || found.colourType === 3;
  if (plain && !found.interlaced && !found.transparency) return png;
  const image = PNG.sync.read(png);
  const { data } = image;
  for (let offset = 0; offset < data.length; offset += 4) {
    const alpha = data[offset + 3] ?? 255;
    for (let channel = 0; channel < 3; channel++) {
      const value = data[offset + channel] ?? 255;
      data[offset + channel] = Math.round((value * alpha + 255 * (255 - alpha)) / 255);
    }
    data[offset + 3] = 255;
  }
  return PNG.sync.write(image, { colorType: 2 });
}
