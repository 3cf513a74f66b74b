// Zips written here by hand, with node:zlib's deflateRawSync and crc32, rather than through a zip library: the format
// needs only local headers, a central directory and an end record (the project reads zips with yauzl). Every entry
// carries the same fixed time (1980-01-01, the first a zip's DOS timestamp holds), so the same files always give the
// same bytes. Used for .xlsx workbooks and the certification step-5 printed representations.
import { open } from 'node:fs/promises';
import { crc32, deflateRawSync } from 'node:zlib';

const localHeaderSignature = 0x04034b50;

/** Whether a file begins as a zip does, with a local file header's signature (what a listing or an XSD set is). */
export async function isZipFile(path: string): Promise<boolean> {
  const magic = Buffer.alloc(4);
  const handle = await open(path, 'r');
  try {
    const { bytesRead } = await handle.read(magic, 0, 4, 0);
    return bytesRead === 4 && magic.readUInt32LE(0) === localHeaderSignature;
  } finally {
    await handle.close();
  }
}

/** A zip of deflated entries (APPNOTE.TXT §4.3): local header and data per entry, central directory, end record. */
export function writeZip(entries: readonly (readonly [string, string | Buffer])[]): Buffer {
  const chunks: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of entries) {
    const nameBytes = Buffer.from(name, 'utf8');
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    const deflated = deflateRawSync(data);
    if (data.length > 0xffff_ffff || offset > 0xffff_ffff) throw new RangeError('too large for a zip without Zip64');
    // version 2.0, flag bit 11 (UTF-8 names), method 8 (deflate), DOS time 00:00 and date 1980-01-01.
    const common = [20, 0x0800, 8, 0, 0x21, crc32(data), deflated.length, data.length, nameBytes.length] as const;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(localHeaderSignature, 0);
    writeFields(local, 4, common);
    chunks.push(local, nameBytes, deflated);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // version made by
    writeFields(central, 6, common);
    central.writeUInt32LE(offset, 42); // extra, comment, disk, attributes stay 0
    directory.push(central, nameBytes);
    offset += local.length + nameBytes.length + deflated.length;
  }
  const directorySize = directory.reduce((sum, chunk) => sum + chunk.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directorySize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...chunks, ...directory, end]);
}

/** version, flags, method, time, date (2 bytes each), crc, sizes (4 bytes each), name length (2). */
function writeFields(
  buffer: Buffer,
  at: number,
  fields: readonly [number, number, number, number, number, number, number, number, number],
): void {
  const [version, flags, method, time, date, crc, compressed, uncompressed, nameLength] = fields;
  buffer.writeUInt16LE(version, at);
  buffer.writeUInt16LE(flags, at + 2);
  buffer.writeUInt16LE(method, at + 4);
  buffer.writeUInt16LE(time, at + 6);
  buffer.writeUInt16LE(date, at + 8);
  buffer.writeUInt32LE(crc, at + 10);
  buffer.writeUInt32LE(compressed, at + 14);
  buffer.writeUInt32LE(uncompressed, at + 18);
  buffer.writeUInt16LE(nameLength, at + 22);
}
