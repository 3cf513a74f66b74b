// Which directory the service reads DGII's XSDs from (the install itself: test/xsd-install.test.ts).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { findXsdDir } from './xsd-dir.js';

const dataDir = mkdtempSync(join(tmpdir(), 'ecf-xsd-find-'));
after(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

describe('findXsdDir', () => {
  it('is none without ECF_XSD_DIR and without an install, even when DATA_DIR/xsd holds files', async () => {
    assert.equal(await findXsdDir({ xsdDir: undefined, dataDir }), undefined);
    mkdirSync(join(dataDir, 'xsd'));
    writeFileSync(join(dataDir, 'xsd', 'e-CF-31.xsd'), '<xs:schema/>');
    assert.equal(await findXsdDir({ xsdDir: undefined, dataDir }), undefined);
  });

  it('is DATA_DIR/xsd once it holds an install, and ECF_XSD_DIR when set', async () => {
    writeFileSync(join(dataDir, 'xsd', 'installed.json'), '{}');
    assert.equal(await findXsdDir({ xsdDir: undefined, dataDir }), join(dataDir, 'xsd'));
    assert.equal(await findXsdDir({ xsdDir: '/srv/dgii/xsd', dataDir }), '/srv/dgii/xsd');
  });
});
