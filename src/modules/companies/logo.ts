// The company logo for the printed representation, normalised once, when the control plane sends it: whatever PNG or
// JPEG arrives is kept as one kind of file (8-bit RGB PNG, not interlaced, transparency flattened on white, the colour
// of the paper), so the PDF renderer embeds it as is: pdfkit inflates an alpha channel through zlib's callbacks, which
// would make a render asynchronous. Nothing is resampled: an image out of bounds is refused, for the operator to resize.
import { createHash } from 'node:crypto';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { isPng, onWhite, pngHeader } from '../../platform/png.js';

/** Printed research §4.2: up to 256 KB and 1,200 × 600 px; below 16 px a side nothing legible is left. */
export const logoLimits = { maxBytes: 256 * 1024, maxWidth: 1200, maxHeight: 600, minSide: 16 } as const;

export interface NormalisedLogo {
  png: Buffer;
  sha256: string;
  width: number;
  height: number;
}

export type LogoProblemCode = 'logo_media_type' | 'logo_unreadable' | 'logo_dimensions' | 'logo_too_heavy';

export type LogoResult = { ok: true; value: NormalisedLogo } | { ok: false; code: LogoProblemCode; message: string };

function mediaTypeOf(bytes: Buffer): 'png' | 'jpeg' | undefined {
  if (isPng(bytes)) return 'png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  return undefined;
}

/** Width and height from the JPEG's start-of-frame segment (any SOFn; C4, C8 and CC are other markers). */
function jpegSize(bytes: Buffer): { width: number; height: number } | undefined {
  let at = 2;
  while (at + 9 <= bytes.length && bytes[at] === 0xff) {
    const marker = bytes[at + 1] ?? 0;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    at += 2 + bytes.readUInt16BE(at + 2);
  }
  return undefined;
}

function sizeProblem(width: number, height: number): string | undefined {
  const { maxWidth, maxHeight, minSide } = logoLimits;
  if (width > maxWidth || height > maxHeight)
    return `The logo is ${width} × ${height} px; at most ${maxWidth} × ${maxHeight} px is accepted (it is not resized).`;
  if (width < minSide || height < minSide)
    return `The logo is ${width} × ${height} px; at least ${minSide} × ${minSide} px is needed.`;
  return undefined;
}

function decode(kind: 'png' | 'jpeg', bytes: Buffer): { width: number; height: number; data: Uint8Array } {
  // pngjs scales 16-bit and palette images to 8-bit RGBA; jpeg-js's bounds are a second guard after the header.
  if (kind === 'png') return PNG.sync.read(bytes);
  return jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: 1, maxMemoryUsageInMB: 64 });
}

const refuse = (code: LogoProblemCode, message: string): LogoResult => ({ ok: false, code, message });

/** Checks and re-encodes a PNG or JPEG; the same input always gives the same bytes. */
export function normaliseLogo(bytes: Buffer): LogoResult {
  const { maxBytes } = logoLimits;
  if (bytes.length > maxBytes)
    return refuse('logo_too_heavy', `The logo has ${bytes.length} bytes; at most ${maxBytes} are accepted.`);
  const kind = mediaTypeOf(bytes);
  if (kind === undefined) return refuse('logo_media_type', 'The logo must be a PNG or a JPEG image.');
  const unreadable = refuse('logo_unreadable', `The logo is not a readable ${kind.toUpperCase()} image.`);
  // Sized from the header before decoding, so a huge image is refused without inflating it.
  const size = kind === 'png' ? (pngHeader(bytes) ?? undefined) : jpegSize(bytes);
  if (size === undefined) return unreadable;
  const outOfBounds = sizeProblem(size.width, size.height);
  if (outOfBounds !== undefined) return refuse('logo_dimensions', outOfBounds);
  let image: { width: number; height: number; data: Uint8Array };
  try {
    image = decode(kind, bytes);
  } catch {
    return unreadable;
  }
  if (image.width !== size.width || image.height !== size.height) return unreadable;
  // A fresh PNG carries no ancillary chunk over (gAMA, text, time): only IHDR, IDAT and IEND are written.
  const out = new PNG({ width: image.width, height: image.height });
  out.data.set(onWhite(image.data));
  const png = PNG.sync.write(out, { colorType: 2, inputHasAlpha: true, bitDepth: 8 });
  return {
    ok: true,
    value: { png, sha256: createHash('sha256').update(png).digest('hex'), width: image.width, height: image.height },
  };
}
