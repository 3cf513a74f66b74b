// The archive verifier as operators meet it (issue 31): one byte tampered, a blob deleted, an orphan planted, a
// recorded SHA-256 changed and a signature broken are exactly five findings of the right kinds, listed by
// GET /internal/archive/findings with webhook events to the company, and all resolve once the damage is repaired.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { sha256Hex } from '../src/platform/storage/blob-store.js';
import { startArchiveWorld } from './support/archive-world.js';
import { opsToken, type TestApp } from './support/test-app.js';

interface Artefact {
  blob_key: string;
  sha256: string;
  size: number;
}

describe('archive verification', () => {
  let app: TestApp;
  let companyId: string;
  const documents: string[] = [];

  before(async () => {
    const world = await startArchiveWorld(5, { env: { ARCHIVE_ORPHAN_GRACE_MINUTES: '0' } });
    ({ app, companyId } = world);
    documents.push(...world.documents);
  });
  after(() => app.close());

  const db = () => app.application.database.db;
  const pathOf = (blobKey: string) => join(app.dataDir, 'blobs', ...blobKey.split('/'));
  const artefact = (documentId: string, kind: string) =>
    db()
      .selectFrom('document_artefacts')
      .select(['blob_key', 'sha256', 'size'])
      .where('document_id', '=', documentId)
      .where('kind', '=', kind as 'signed-xml')
      .executeTakeFirstOrThrow() as Promise<Artefact>;
  const findings = async (query = '') => {
    const response = await app.app.inject({
      method: 'GET',
      url: `/internal/archive/findings${query}`,
      headers: { authorization: `Bearer ${opsToken}` },
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json<{
      data: {
        summary: { open: number; openByKind: Record<string, number>; lastCompletePass: unknown };
        findings: {
          id: string;
          kind: string;
          status: string;
          artefact: { key: string; kind: string | null };
          owner: { id: string } | null;
          companyId: string | null;
        }[];
      };
      meta: { nextCursor: string | null };
    }>();
  };

  it('finds nothing in an intact archive', async () => {
    const report = await app.application.services.archive.runPass({});
    assert.deepEqual(report.failing, []);
    assert.equal(report.pass.artefacts, 15, 'three artefacts of each of five documents');
    assert.equal(report.pass.recorded_artefacts, 15);
    const listed = await findings();
    assert.equal(listed.data.summary.open, 0);
    assert.deepEqual(listed.data.findings, []);
  });

  it('reports exactly the five kinds of damage, lists them, and resolves them once repaired', async () => {
    const [tampered, deleted, rehashed, resigned] = documents as [string, string, string, string];
    const signed = await artefact(tampered, 'signed-xml');
    const original = readFileSync(pathOf(signed.blob_key));
    const changed = Buffer.from(original);
    changed[200] = changed[200] === 0x41 ? 0x42 : 0x41;
    writeFileSync(pathOf(signed.blob_key), changed);

    const source = await artefact(deleted, 'source-json');
    const sourceBytes = readFileSync(pathOf(source.blob_key));
    unlinkSync(pathOf(source.blob_key));

    const orphanKey = signed.blob_key.replace(tampered, 'doc_planted00000000000');
    writeFileSync(pathOf(orphanKey), original);
    utimesSync(pathOf(orphanKey), new Date(Date.now() - 7_200_000), new Date(Date.now() - 7_200_000));

    const sourceXml = await artefact(rehashed, 'source-xml');
    await db()
      .updateTable('document_artefacts')
      .set({ sha256: '0'.repeat(64) })
      .where('blob_key', '=', sourceXml.blob_key)
      .execute();

    // A signature broken with a record that agrees with the bytes: the amount changed after signing, the hash
    // recorded again, as someone covering their tracks would.
    const resignedArtefact = await artefact(resigned, 'signed-xml');
    const resignedOriginal = readFileSync(pathOf(resignedArtefact.blob_key));
    const forged = Buffer.from(
      resignedOriginal.toString('utf8').replace(/<MontoTotal>([0-9.]+)<\/MontoTotal>/, '<MontoTotal>1.00</MontoTotal>'),
    );
    assert.ok(!forged.equals(resignedOriginal));
    writeFileSync(pathOf(resignedArtefact.blob_key), forged);
    await db()
      .updateTable('document_artefacts')
      .set({ sha256: sha256Hex(forged), size: forged.byteLength })
      .where('blob_key', '=', resignedArtefact.blob_key)
      .execute();

    const report = await app.application.services.archive.runPass({});
    const found = report.failing
      .flatMap((verdict) => verdict.failures.map((failure) => `${failure.kind} ${verdict.key}`))
      .sort();
    assert.deepEqual(
      found,
      [
        `content_mismatch ${signed.blob_key}`,
        `missing_blob ${source.blob_key}`,
        `orphan_blob ${orphanKey}`,
        `content_mismatch ${sourceXml.blob_key}`,
        `bad_signature ${resignedArtefact.blob_key}`,
      ].sort(),
    );

    const listed = await findings();
    assert.equal(listed.data.summary.open, 5);
    assert.deepEqual(listed.data.summary.openByKind, {
      bad_signature: 1,
      content_mismatch: 2,
      missing_blob: 1,
      orphan_blob: 1,
    });
    assert.deepEqual(listed.data.findings.map((finding) => `${finding.kind} ${finding.artefact.key}`).sort(), found);
    const missing = listed.data.findings.find((finding) => finding.kind === 'missing_blob');
    assert.ok(missing !== undefined);
    assert.equal(missing.owner?.id, deleted);
    assert.equal(missing.companyId, companyId);
    assert.equal(missing.artefact.kind, 'source-json');
    const orphans = await findings('?kind=orphan_blob');
    assert.deepEqual(
      orphans.data.findings.map((finding) => finding.artefact.key),
      [orphanKey],
    );
    const paged = await findings('?limit=2&status=open');
    assert.equal(paged.data.findings.length, 2);
    assert.ok(paged.meta.nextCursor !== null);
    const rest = await findings(`?limit=200&status=open&cursor=${paged.meta.nextCursor}`);
    assert.equal(rest.data.findings.length, 3);

    const metrics = await app.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${opsToken}` },
    });
    assert.match(metrics.body, /^ecf_archive_findings_open\{kind="content_mismatch"\} 2$/m);
    assert.match(metrics.body, /^ecf_archive_findings_open\{kind="orphan_blob"\} 1$/m);
    assert.match(metrics.body, /^ecf_archive_findings_open\{kind="record_mismatch"\} 0$/m);
    assert.match(metrics.body, /^ecf_archive_last_complete_pass_age_seconds -1$/m, 'no rolling pass has run');

    // The company hears of the four that are its documents' (an orphan belongs to no record).
    const opened = await sql<{ payload: { kind: string } }>`select payload from domain_events
      where company_id = ${companyId} and type = 'archive.finding_opened'`.execute(db());
    assert.equal(opened.rows.length, 4);

    // Seen again: the same findings, no new ones.
    const again = await app.application.services.archive.runPass({});
    assert.equal(again.failing.length, 5);
    assert.equal((await findings()).data.summary.open, 5);

    // Repaired: the bytes put back, the records restored, the orphan removed.
    writeFileSync(pathOf(signed.blob_key), original);
    writeFileSync(pathOf(source.blob_key), sourceBytes);
    rmSync(pathOf(orphanKey));
    await db()
      .updateTable('document_artefacts')
      .set({ sha256: sourceXml.sha256 })
      .where('blob_key', '=', sourceXml.blob_key)
      .execute();
    writeFileSync(pathOf(resignedArtefact.blob_key), resignedOriginal);
    await db()
      .updateTable('document_artefacts')
      .set({ sha256: resignedArtefact.sha256, size: resignedArtefact.size })
      .where('blob_key', '=', resignedArtefact.blob_key)
      .execute();

    const repaired = await app.application.services.archive.runPass({});
    assert.deepEqual(repaired.failing, []);
    const after = await findings();
    assert.equal(after.data.summary.open, 0);
    const resolved = await findings('?status=resolved');
    assert.equal(resolved.data.findings.length, 5);
    assert.ok(resolved.data.findings.every((finding) => finding.status === 'resolved'));
    const resolvedEvents = await sql`select 1 from domain_events
      where company_id = ${companyId} and type = 'archive.finding_resolved'`.execute(db());
    assert.equal(resolvedEvents.rows.length, 4);
  });
});
