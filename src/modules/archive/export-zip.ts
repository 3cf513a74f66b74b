// The export's zip, written to its file as it grows, with Zip64 where the format needs it (APPNOTE.TXT §4.3.14,
// §4.3.15, §4.5.3): past 65,534 entries, or 4 GiB of file or of an entry. Written here rather than through a library:
// yazl, the obvious one (by yauzl's author, which the project reads zips with), keeps every entry in memory until the
// end and looks for the next entry to write from the first one at every step, so its time grows with the square of
// the entries (measured: 50,000 entries in 7.8 s, 100,000 in 32 s; a busy company's year is millions), and it paid
// some 300 µs of streams per entry where deflating a 10 kB artefact takes 40. src/platform/zip.ts builds small zips
// whole in memory, without Zip64. What this one keeps between entries is the count and the offset: each entry's
// central directory record goes to a spool file, copied after the last entry.
//
// Entries are deflated (stored when that would not make them smaller), with sizes and CRC in the local header (no
// data descriptors), UTF-8 names, mode 0644, and the caller's time, as a DOS time in GMT-4 and exactly as an
// Info-ZIP extended timestamp: the same files at the same times make the same zip.
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { finished, pipeline } from 'node:stream/promises';
import { crc32, createDeflateRaw, deflateRawSync } from 'node:zlib';
import { calendarDateOf, formatDgiiTimestamp } from '../../fiscal/dates.js';

const max16 = 0xffff;
const max32 = 0xffff_ffff;
const stored = 0;
const deflated = 8;
const utf8Names = 0x0800;
/** Unix (3) in the high byte, so readers apply the mode in the external attributes. */
const madeBy = (3 << 8) | 45;
const fileMode = 0o100644;

export interface ZipWriter {
  add(path: string, bytes: Buffer, mtime: Date): Promise<void>;
  /** A file too large to hold in memory (the manifests): deflated to a temporary file first, to know its sizes. */
  addFile(path: string, file: string, mtime: Date): Promise<void>;
  /** Writes the central directory and the end records; resolves with the zip's size once the file is closed. */
  close(): Promise<number>;
  /** Stops writing after a failure; the caller removes the file. */
  destroy(): void;
}

export interface ZipWriterOptions {
  /** A directory for the spooled central directory and deflated files. */
  workDir: string;
  /** Zip64 records for every entry and at the end even when the sizes do not need them (tests of the readers). */
  forceZip64?: boolean;
}

interface EntrySizes {
  crc: number;
  method: number;
  compressed: number;
  uncompressed: number;
}

/**
 * A file written with its stream's backpressure, in chunks of at least `chunkSize`: an entry is a few small pieces,
 * and one write(2) each cost more than deflating them.
 */
class Output {
  private readonly stream: WriteStream;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  written = 0;

  constructor(
    readonly file: string,
    private readonly chunkSize = 256 * 1024,
  ) {
    this.stream = createWriteStream(file);
    this.stream.on('error', () => undefined); // thrown by the next write, drain or close
  }

  async write(chunk: Buffer): Promise<void> {
    this.written += chunk.length;
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= this.chunkSize) await this.flush();
  }

  async copy(file: string): Promise<void> {
    for await (const chunk of createReadStream(file)) await this.write(chunk as Buffer);
  }

  async close(): Promise<void> {
    await this.flush();
    this.stream.end();
    await finished(this.stream);
  }

  destroy(): void {
    this.stream.destroy();
  }

  private async flush(): Promise<void> {
    if (this.stream.errored !== null) throw this.stream.errored;
    const chunk = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    if (!this.stream.write(chunk)) await once(this.stream, 'drain');
  }
}

export function createZipWriter(path: string, options: ZipWriterOptions): ZipWriter {
  const out = new Output(path);
  const directory = new Output(join(options.workDir, 'central-directory'));
  const force = options.forceZip64 === true;
  let entries = 0;
  let temporaries = 0;

  async function writeEntry(name: string, mtime: Date, sizes: EntrySizes, data: (out: Output) => Promise<void>) {
    const nameBytes = Buffer.from(name, 'utf8');
    const offset = out.written;
    const [time, date] = dosTime(mtime);
    const large = force || sizes.compressed >= max32 || sizes.uncompressed >= max32;
    // §4.5.3: a local header's Zip64 field holds both sizes.
    const localZip64 = large ? zip64Field([sizes.uncompressed, sizes.compressed]) : Buffer.alloc(0);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(large ? 45 : 20, 4);
    local.writeUInt16LE(utf8Names, 6);
    local.writeUInt16LE(sizes.method, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt32LE(sizes.crc, 14);
    local.writeUInt32LE(large ? max32 : sizes.compressed, 18);
    local.writeUInt32LE(large ? max32 : sizes.uncompressed, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const timestamp = extendedTimestamp(mtime);
    local.writeUInt16LE(localZip64.length + timestamp.length, 28);
    await out.write(Buffer.concat([local, nameBytes, localZip64, timestamp]));
    await data(out);

    // The central record's Zip64 field holds only the values that do not fit (§4.5.3), in this order.
    const wide = [sizes.uncompressed, sizes.compressed, offset].map((value) => force || value >= max32);
    const centralZip64 = wide.some(Boolean)
      ? zip64Field([sizes.uncompressed, sizes.compressed, offset].filter((_, i) => wide[i]))
      : Buffer.alloc(0);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(madeBy, 4);
    central.writeUInt16LE(centralZip64.length > 0 ? 45 : 20, 6);
    central.writeUInt16LE(utf8Names, 8);
    central.writeUInt16LE(sizes.method, 10);
    central.writeUInt16LE(time, 12);
    central.writeUInt16LE(date, 14);
    central.writeUInt32LE(sizes.crc, 16);
    central.writeUInt32LE(wide[1] === true ? max32 : sizes.compressed, 20);
    central.writeUInt32LE(wide[0] === true ? max32 : sizes.uncompressed, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt16LE(centralZip64.length + timestamp.length, 30);
    // comment length, disk number, internal attributes: 0
    central.writeUInt32LE((fileMode << 16) >>> 0, 38);
    central.writeUInt32LE(wide[2] === true ? max32 : offset, 42);
    await directory.write(Buffer.concat([central, nameBytes, centralZip64, timestamp]));
    entries++;
  }

  return {
    async add(name, bytes, mtime) {
      // Synchronous: 40 µs for a 10 kB artefact, where the thread pool's round trip cost more than the work.
      const packed = deflateRawSync(bytes);
      const method = packed.length < bytes.length ? deflated : stored;
      const data = method === deflated ? packed : bytes;
      const sizes = { crc: crc32(bytes), method, compressed: data.length, uncompressed: bytes.length };
      await writeEntry(name, mtime, sizes, (to) => to.write(data));
    },
    async addFile(name, file, mtime) {
      const packedFile = join(options.workDir, `deflated-${temporaries++}`);
      let crc = 0;
      let uncompressed = 0;
      const packed = createWriteStream(packedFile);
      await pipeline(
        createReadStream(file),
        async function* (chunks: AsyncIterable<Buffer>) {
          for await (const chunk of chunks) {
            crc = crc32(chunk, crc);
            uncompressed += chunk.length;
            yield chunk;
          }
        },
        createDeflateRaw(),
        packed,
      );
      const sizes = { crc, method: deflated, compressed: packed.bytesWritten, uncompressed };
      await writeEntry(name, mtime, sizes, (to) => to.copy(packedFile));
    },
    async close() {
      await directory.close();
      const directoryOffset = out.written;
      await out.copy(directory.file);
      const directorySize = out.written - directoryOffset;
      const zip64 = force || entries >= max16 || directoryOffset >= max32 || directorySize >= max32;
      if (zip64) {
        const recordOffset = out.written;
        const record = Buffer.alloc(56);
        record.writeUInt32LE(0x06064b50, 0);
        record.writeBigUInt64LE(44n, 4); // the record's size after this field
        record.writeUInt16LE(madeBy, 12);
        record.writeUInt16LE(45, 14);
        // this disk and the directory's disk: 0
        record.writeBigUInt64LE(BigInt(entries), 24);
        record.writeBigUInt64LE(BigInt(entries), 32);
        record.writeBigUInt64LE(BigInt(directorySize), 40);
        record.writeBigUInt64LE(BigInt(directoryOffset), 48);
        const locator = Buffer.alloc(20);
        locator.writeUInt32LE(0x07064b50, 0);
        locator.writeBigUInt64LE(BigInt(recordOffset), 8);
        locator.writeUInt32LE(1, 16); // disks in all
        await out.write(Buffer.concat([record, locator]));
      }
      const end = Buffer.alloc(22);
      end.writeUInt32LE(0x06054b50, 0);
      end.writeUInt16LE(zip64 ? max16 : entries, 8);
      end.writeUInt16LE(zip64 ? max16 : entries, 10);
      end.writeUInt32LE(zip64 ? max32 : directorySize, 12);
      end.writeUInt32LE(zip64 ? max32 : directoryOffset, 16);
      await out.write(end);
      await out.close();
      return out.written;
    },
    destroy() {
      out.destroy();
      directory.destroy();
    },
  };
}

/** The Zip64 extended information extra field (§4.5.3) with these 8-byte values. */
function zip64Field(values: readonly number[]): Buffer {
  const field = Buffer.alloc(4 + 8 * values.length);
  field.writeUInt16LE(0x0001, 0);
  field.writeUInt16LE(8 * values.length, 2);
  values.forEach((value, i) => field.writeBigUInt64LE(BigInt(value), 4 + 8 * i));
  return field;
}

/** Info-ZIP's extended timestamp (0x5455, "UT"): the modification time, seconds since 1970 UTC. */
function extendedTimestamp(mtime: Date): Buffer {
  const field = Buffer.alloc(9);
  field.writeUInt16LE(0x5455, 0);
  field.writeUInt16LE(5, 2);
  field.writeUInt8(1, 4); // the modification time is present
  field.writeUInt32LE(Math.max(0, Math.min(max32, Math.floor(mtime.getTime() / 1_000))), 5);
  return field;
}

/** MS-DOS time and date (§4.4.6) of the instant in GMT-4, the archive's time, within the years DOS can hold. */
function dosTime(mtime: Date): [number, number] {
  const { year, month, day } = calendarDateOf(mtime);
  if (year < 1980) return [0, (1 << 5) | 1];
  if (year > 2107) return [(23 << 11) | (59 << 5) | 29, (127 << 9) | (12 << 5) | 31];
  const [hours, minutes, seconds] = formatDgiiTimestamp(mtime).slice(11).split(':').map(Number) as [
    number,
    number,
    number,
  ];
  return [(hours << 11) | (minutes << 5) | (seconds >> 1), ((year - 1980) << 9) | (month << 5) | day];
}
