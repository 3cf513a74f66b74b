import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeZip } from './zip.js';
import { zipEntries } from '../../test/support/zip-entries.js';

test('a zip holds the files byte for byte, and the same files always give the same bytes', async () => {
  const files = [
    { name: '31_E310000000001.pdf', bytes: Buffer.from('%PDF-1.7 one') },
    { name: '32-menor-250k_E320000000002.pdf', bytes: Buffer.alloc(70_000, 7) },
  ];
  const zip = writeZip(files.map((file) => [file.name, file.bytes]));
  const entries = await zipEntries(zip);
  assert.deepEqual(
    [...entries.keys()],
    files.map((file) => file.name),
  );
  for (const file of files) assert.ok(entries.get(file.name)?.equals(file.bytes), file.name);
  assert.ok(writeZip(files.map((file) => [file.name, file.bytes])).equals(zip));
});
