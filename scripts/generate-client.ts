// Regenerates the TypeScript client's generated files in sdk/ from the contract the app serves: `npm run client`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clientFiles, servedContract } from './client-generation.js';

const root = join(import.meta.dirname, '..');
const files = await clientFiles(await servedContract());
for (const [path, text] of Object.entries(files)) {
  writeFileSync(join(root, path), text);
  console.log(`wrote ${path} (${String(Buffer.byteLength(text))} bytes)`);
}
