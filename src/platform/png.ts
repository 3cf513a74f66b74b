// What a PNG's header says, read without decoding it: its signature, then IHDR (width, height, colour type,
// interlace), so an image can be sized or refused before a byte of it is inflated.
const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface PngHeader {
  width: number;
  height: number;
  /** 0 grey, 2 RGB, 3 palette, 4 grey + alpha, 6 RGBA. */
  colourType: number;
  interlaced: boolean;
  /** A tRNS chunk: transparency without an alpha channel. */
  transparency: boolean;
}

export function isPng(bytes: Buffer): boolean {
  return bytes.subarray(0, 8).equals(signature);
}

/** The header, or null when the bytes are not a PNG with a non-empty IHDR. */
export function pngHeader(png: Buffer): PngHeader | null {
  if (png.length < 33 || !isPng(png) || png.toString('latin1', 12, 16) !== 'IHDR') return null;
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

/** RGBA pixels composed over white, opaque: what they look like on paper. */
export function onWhite(rgba: Uint8Array): Uint8Array {
  const flat = Uint8Array.from(rgba);
  for (let offset = 0; offset < flat.length; offset += 4) {
    const alpha = flat[offset + 3] ?? 255;
    for (let channel = 0; channel < 3; channel++)
      flat[offset + channel] = Math.round(((flat[offset + channel] ?? 255) * alpha + 255 * (255 - alpha)) / 255);
    flat[offset + 3] = 255;
  }
  return flat;
}
