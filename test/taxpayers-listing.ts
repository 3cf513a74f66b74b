// Synthetic DGII taxpayer listings in the real layout (DGII_RNC.TXT: `|`-delimited, 11 columns, Windows-1252),
// and a minimal zip writer (stored names, raw deflate, data descriptor) so tests exercise the zip path without
// a zip library. No real taxpayer data: numbers are generated with valid check digits.
import { createWriteStream, writeFileSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32, createDeflateRaw, deflateRawSync } from 'node:zlib';

export function rncFor(n: number): string {
  const body = String(n).padStart(8, '0');
  const weights = [7, 9, 8, 6, 5, 4, 3, 2];
  const sum = weights.reduce((total, weight, i) => total + weight * Number(body[i]), 0);
  return `${body}${((10 - (sum % 11)) % 9) + 1}`;
}

export function cedulaFor(n: number): string {
  const body = String(n).padStart(10, '0');
  let sum = 0;
  for (let i = 0; i < 10; i++) {
    const product = Number(body[i]) * (i % 2 === 0 ? 1 : 2);
    sum += product > 9 ? product - 9 : product;
  }
  return `${body}${(10 - (sum % 10)) % 10}`;
}

export interface ListingRow {
  taxId: string;
  legalName: string;
  tradeName?: string;
  activity?: string;
  started?: string;
  status?: string;
  regime?: string;
}

/** One line of DGII_RNC.TXT, as text (encode with `latin1`). */
export function listingLine(row: ListingRow): string {
  return [
    row.taxId,
    row.legalName,
    row.tradeName ?? '',
    row.activity ?? '',
    '',
    '',
    '',
    '',
    row.started ?? '01/02/2003',
    row.status ?? 'ACTIVO',
    row.regime ?? 'NORMAL',
  ].join('|');
}

/** The listing as DGII ships it: Windows-1252 bytes, CRLF line ends. */
export function listingBytes(lines: readonly (string | Buffer)[]): Buffer {
  return Buffer.concat(
    lines.map((line) =>
      Buffer.concat([typeof line === 'string' ? Buffer.from(line, 'latin1') : line, Buffer.from('\r\n')]),
    ),
  );
}

function dosTime(): { time: number; date: number } {
  return { time: 0, date: ((2026 - 1980) << 9) | (11 << 5) | 21 };
}

function centralDirectory(name: Buffer, crc: number, compressed: number, size: number, flags: number): Buffer {
  const { time, date } = dosTime();
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(flags, 8);
  central.writeUInt16LE(8, 10);
  central.writeUInt16LE(time, 12);
  central.writeUInt16LE(date, 14);
  central.writeUInt32LE(crc >>> 0, 16);
  central.writeUInt32LE(compressed, 20);
  central.writeUInt32LE(size, 24);
  central.writeUInt16LE(name.length, 28);
  // extra, comment, disk, internal attributes, external attributes, local header offset (0): all zero.
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(46 + name.length, 12);
  return Buffer.concat([central, name, end]);
}

function localHeader(name: Buffer, crc: number, compressed: number, size: number, flags: number): Buffer {
  const { time, date } = dosTime();
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(flags, 6);
  header.writeUInt16LE(8, 8);
  header.writeUInt16LE(time, 10);
  header.writeUInt16LE(date, 12);
  header.writeUInt32LE(crc >>> 0, 14);
  header.writeUInt32LE(compressed, 18);
  header.writeUInt32LE(size, 22);
  header.writeUInt16LE(name.length, 26);
  return Buffer.concat([header, name]);
}

/** A one-entry zip of `content`, written at once. */
export function writeZip(path: string, entryName: string, content: Buffer): void {
  const name = Buffer.from(entryName);
  const data = deflateRawSync(content);
  const crc = crc32(content);
  const local = localHeader(name, crc, data.length, content.length, 0);
  const central = centralDirectory(name, crc, data.length, content.length, 0);
  // The central directory's offset: right after the local header and the data.
  central.writeUInt32LE(local.length + data.length, 46 + name.length + 16);
  writeFileSync(path, Buffer.concat([local, data, central]));
}

/** A one-entry zip streamed from `chunks` (flag bit 3: sizes and CRC follow the data, as streaming zippers write). */
export async function streamZip(
  path: string,
  entryName: string,
  chunks: Iterable<Buffer>,
): Promise<{ size: number; compressed: number }> {
  const name = Buffer.from(entryName);
  let crc = 0;
  let size = 0;
  let compressed = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      crc = crc32(chunk, crc);
      size += chunk.length;
      callback(null, chunk);
    },
  });
  const count = new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      compressed += chunk.length;
      callback(null, chunk);
    },
  });
  writeFileSync(path, localHeader(name, 0, 0, 0, 0x08));
  await pipeline(Readable.from(chunks), measure, createDeflateRaw(), count, createWriteStream(path, { flags: 'a' }));
  const descriptor = Buffer.alloc(16);
  descriptor.writeUInt32LE(0x08074b50, 0);
  descriptor.writeUInt32LE(crc >>> 0, 4);
  descriptor.writeUInt32LE(compressed, 8);
  descriptor.writeUInt32LE(size, 12);
  const central = centralDirectory(name, crc, compressed, size, 0x08);
  central.writeUInt32LE(30 + name.length + compressed + 16, 46 + name.length + 16);
  await appendFile(path, Buffer.concat([descriptor, central]));
  return { size, compressed };
}
