// A zip of files held in memory, with yazl (the writer paired with yauzl, which reads zips here already). Every
// entry carries the same fixed time, so the same files always give the same bytes.
import { ZipFile } from 'yazl';

/** 1980-01-01, the first instant a zip's DOS timestamp can hold: no clock in the bytes. */
const fixedTime = new Date(1980, 0, 1);

export async function zipOf(files: readonly { name: string; bytes: Buffer }[]): Promise<Buffer> {
  const zip = new ZipFile();
  for (const file of files) zip.addBuffer(file.bytes, file.name, { mtime: fixedTime, mode: 0o100644 });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
