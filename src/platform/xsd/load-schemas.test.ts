import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createLogger } from '../observability/logger.js';
import { officialXsdDir, validEcf31 } from '../../../test/support/dgii-files.js';
import { loadSchemaSet, XsdDirectoryError, type SchemaLog } from './index.js';

interface LogLine {
  level: 'info' | 'warn';
  fields: Record<string, unknown>;
  message: string;
}

function recordingLog(): SchemaLog & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const recorder = (level: LogLine['level']) => (fields: Record<string, unknown>, message: string) => {
    lines.push({ level, fields, message });
  };
  return { lines, info: recorder('info'), warn: recorder('warn') };
}

const temporary: string[] = [];
after(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

/** A copy of the official directory, renamed or thinned as a test needs: never written into the repository. */
function copyOfficial(rename: (name: string) => string | undefined): string {
  const dir = mkdtempSync(join(tmpdir(), 'ecf-xsd-dir-'));
  temporary.push(dir);
  for (const name of readdirSync(officialXsdDir)) {
    const target = rename(name);
    if (target !== undefined) copyFileSync(join(officialXsdDir, name), join(dir, target));
  }
  return dir;
}

describe('loadSchemaSet', () => {
  it("accepts the service's pino logger", async () => {
    const log: SchemaLog = createLogger('silent');
    assert.equal(await loadSchemaSet(undefined, log), undefined);
  });

  it('without a directory warns once, naming the command that installs them, and returns nothing', async () => {
    const log = recordingLog();
    assert.equal(await loadSchemaSet(undefined, log), undefined);
    assert.deepEqual(
      log.lines.map((line) => `${line.level}: ${line.message}`),
      [
        'warn: no DGII XSDs found (ECF_XSD_DIR unset, none installed under DATA_DIR/xsd); documents are checked against the model only; run: ecf xsd install <dir|zip|URL>',
      ],
    );
  });

  it('compiles the official directory and logs each repair once', async () => {
    const log = recordingLog();
    const set = await loadSchemaSet(officialXsdDir, log);
    assert.ok(set !== undefined);
    try {
      assert.deepEqual(set.validate('e-CF-31', validEcf31()), []);
      const repairs = log.lines.filter((line) => line.message.startsWith('repaired')).map((line) => line.fields.repair);
      assert.deepEqual(repairs, set.repairs);
      assert.equal(new Set(repairs).size, 8);
    } finally {
      set.dispose();
    }
  });

  it("reads DGII's own file names unchanged", async () => {
    const dgiiName = (name: string) =>
      name
        .replace(/^(e-CF|RFCE)-(\d+)\.xsd$/, '$1 $2 v.1.0.xsd')
        .replace(/^(ARECF)\.xsd$/, '$1 v1.0.xsd')
        .replace(/^(ACECF|ANECF|Semilla)\.xsd$/, '$1 v.1.0.xsd');
    const set = await loadSchemaSet(copyOfficial(dgiiName), recordingLog());
    assert.ok(set !== undefined);
    set.dispose();
  });

  it('names the file a directory lacks', async () => {
    const dir = copyOfficial((name) => (name === 'ANECF.xsd' ? undefined : name));
    await assert.rejects(loadSchemaSet(dir, recordingLog()), (error: unknown) => {
      assert.ok(error instanceof XsdDirectoryError);
      assert.match(error.message, /lacks the XSD for ANECF \(ANECF\.xsd\)$/);
      return true;
    });
  });

  it('names a directory it cannot read', async () => {
    await assert.rejects(
      loadSchemaSet(join(tmpdir(), 'no-such-ecf-xsd-dir'), recordingLog()),
      /ECF_XSD_DIR .*no-such-ecf-xsd-dir cannot be read/,
    );
  });
});
