// The company logo, already normalised at upload (8-bit RGB PNG on white, not interlaced, at most 1200 × 600 px).
import { PNG } from 'pngjs';
import { onWhite, pngHeader } from '../../platform/png.js';

/** Pixel size from the IHDR chunk, or null when the bytes are not a PNG (then no logo is drawn). */
export function pngSize(png: Buffer): { width: number; height: number } | null {
  const found = pngHeader(png);
  return found === null ? null : { width: found.width, height: found.height };
}

/**
 * The logo as pdfkit can embed it without waiting: pdfkit inflates PNGs with an alpha channel, a tRNS chunk or
 * interlacing through zlib's callback API, which would make rendering asynchronous. The companies module stores
 * logos already flattened (plain RGB), which pass as they are; any other is flattened on white here, once per logo.
 */
export function embeddableLogo(png: Buffer): Buffer | null {
  const found = pngHeader(png);
  if (found === null) return null;
  const plain = found.colourType === 0 || found.colourType === 2 || found.colourType === 3;
  if (plain && !found.interlaced && !found.transparency) return png;
  const image = PNG.sync.read(png);
  image.data = Buffer.from(onWhite(image.data));
  return PNG.sync.write(image, { colorType: 2 });
}
