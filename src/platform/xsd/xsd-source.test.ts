// The bounds and ambiguities of a source `ecf xsd install` reads (the command itself: test/xsd-install.test.ts).
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { officialXsdDir } from '../../../test/support/dgii-files.js';
import { writeZip } from '../zip.js';
import { readXsdSource, XsdSourceError } from './xsd-source.js';

const dir = mkdtempSync(join(tmpdir(), 'ecf-xsd-source-'));
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

const officialEntries = (): [string, Buffer][] =>
  readdirSync(officialXsdDir).map((name) => [`xsd/${name}`, readFileSync(join(officialXsdDir, name))]);

function zipFile(name: string, entries: [string, Buffer | string][]): string {
  const path = join(dir, name);
  writeFileSync(path, writeZip(entries));
  return path;
}

describe('readXsdSource', () => {
  it('reads the fifteen from a zip, in the order of the kinds, ignoring other entries', async () => {
    const source = await readXsdSource(zipFile('ok.zip', [['LEEME.txt', 'x'], ...officialEntries()]));
    assert.equal(source.files.length, 15);
    const [first] = source.files;
    assert.deepEqual([first?.kind, first?.name], ['e-CF-31', 'xsd/e-CF-31.xsd']);
    assert.deepEqual(first?.bytes, readFileSync(join(officialXsdDir, 'e-CF-31.xsd')));
  });

  it('refuses an XSD that inflates past 4 MB, naming it; a large entry that is not an XSD is skipped', async () => {
    const bomb = Buffer.alloc(64 * 1024 * 1024, 0x20);
    const entries: [string, Buffer][] = officialEntries().map(([name, bytes]) =>
      name.endsWith('/ANECF.xsd') ? [name, Buffer.concat([bytes, Buffer.alloc(5 * 1024 * 1024, 0x20)])] : [name, bytes],
    );
    await assert.rejects(
      readXsdSource(zipFile('big.zip', entries)),
      new XsdSourceError(
        `xsd/ANECF.xsd in ${join(dir, 'big.zip')} is larger than 4194304 bytes, the bound for one XSD`,
      ),
    );
    const withBomb = await readXsdSource(zipFile('bomb.zip', [['bomba.bin', bomb], ...officialEntries()]));
    assert.equal(withBomb.files.length, 15);
  });

  it('refuses two files for one kind, naming both', async () => {
    const path = zipFile('two.zip', [...officialEntries(), ['viejo/e-CF 31 v.1.0.xsd', '<xs:schema/>']]);
    await assert.rejects(
      readXsdSource(path),
      new XsdSourceError(`${path} holds two XSDs for e-CF-31: xsd/e-CF-31.xsd and viejo/e-CF 31 v.1.0.xsd`),
    );
  });

  it('refuses a file that is neither a directory nor a zip', async () => {
    const path = join(dir, 'e-CF-31.xsd');
    writeFileSync(path, '<xs:schema/>');
    await assert.rejects(
      readXsdSource(path),
      new XsdSourceError(`${path} is neither a directory nor a zip of DGII's XSDs`),
    );
  });

  it('stops a download past its bound, counting the bytes when no length is announced', async () => {
    const megabyte = Buffer.alloc(1024 * 1024);
    const server = createServer((_request, response) => {
      // Chunked: the bound is met while the bytes arrive, not read from a Content-Length.
      response.writeHead(200);
      for (let i = 0; i < 65; i++) response.write(megabyte);
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/xsd.zip`;
    try {
      await assert.rejects(
        readXsdSource(url),
        new XsdSourceError(`${url} is larger than 67108864 bytes, the bound for this download`),
      );
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
