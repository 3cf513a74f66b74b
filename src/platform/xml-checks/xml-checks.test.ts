// The XML thread answers exactly what the same fiscal function answers on the main thread, for a valid large e-CF
// and for a refused one; and a thread that dies under a document gives a refusal, never an exception.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildEcf } from '../../fiscal/build/index.js';
import { readReceivedEcf } from '../../fiscal/receiving/received-ecf.js';
import { checkSignedEcf, readSignedEcf } from '../../fiscal/receiving/signed-ecf-check.js';
import { signCanonicalDocument } from '../../fiscal/xmldsig/index.js';
import { compileSchemaSet, type SchemaSet } from '../../fiscal/xsd/index.js';
import { officialXsdDir, readOfficialXsds } from '../../../test/support/dgii-files.js';
import { ecfDocuments, ownedFieldsFor } from '../../../test/support/ecf-documents.js';
import { testSigningKey } from '../../../test/support/xmldsig-kit.js';
import { createXmlChecks, offThreadBytes, type XmlChecks } from './xml-checks.js';

/** A signed e-CF 31 of `lines` lines: past offThreadBytes from a few hundred lines on. */
function signedEcfWithLines(lines: number): Buffer {
  const document = structuredClone(ecfDocuments['31']) as {
    DetallesItems: { Item: Record<string, unknown>[] };
    Encabezado: Record<string, unknown>;
  };
  const first = document.DetallesItems.Item[0] as Record<string, unknown>;
  document.DetallesItems.Item = Array.from({ length: lines }, (_, i) => ({ ...first, NumeroLinea: String(i + 1) }));
  // The totals no longer match the lines; neither the XSD nor the signature cares, and that is all these checks read.
  const built = buildEcf(document, { ...ownedFieldsFor('31'), eNCF: 'E310000000042' });
  assert.ok(built.ok, JSON.stringify(!built.ok && built.findings.slice(0, 3)));
  return Buffer.from(signCanonicalDocument(built.xml, testSigningKey()));
}

describe('XML checks on the XML thread', () => {
  let schemas: SchemaSet;
  let checks: XmlChecks;
  before(() => {
    schemas = compileSchemaSet(readOfficialXsds());
    checks = createXmlChecks({ schemas, xsdDir: officialXsdDir });
  });
  after(async () => {
    await checks.close();
    schemas.dispose();
  });

  it('reads a large valid e-CF there exactly as here: received, signature and schema checked', async () => {
    const xml = signedEcfWithLines(600);
    assert.ok(xml.byteLength >= offThreadBytes, `${xml.byteLength} bytes`);
    const here = readReceivedEcf(xml, schemas);
    assert.equal(here.kind, 'readable', JSON.stringify(here));
    assert.deepEqual(await checks.readReceivedEcf(xml), here);
    const signedHere = checkSignedEcf(xml, schemas);
    assert.ok(signedHere.ok, JSON.stringify(signedHere));
    assert.deepEqual(await checks.checkSignedEcf(xml), signedHere);
    const archived = readSignedEcf(xml);
    assert.equal(archived.verdict.ok && archived.parsed.ok, true);
    assert.deepEqual(await checks.readSignedEcf(xml), archived);
  });

  it('refuses a large tampered e-CF there exactly as here: Estado 1 for the signature, 422 errors for intake', async () => {
    const xml = Buffer.from(
      signedEcfWithLines(600)
        .toString('utf8')
        .replace('<NumeroLinea>600</NumeroLinea>', '<NumeroLinea>601</NumeroLinea>'),
    );
    const here = readReceivedEcf(xml, schemas);
    assert.deepEqual([here.kind, here.kind === 'not_received' ? here.reason : undefined], ['not_received', '2']);
    assert.deepEqual(await checks.readReceivedEcf(xml), here);
    const signedHere = checkSignedEcf(xml, schemas);
    assert.equal(signedHere.ok, false);
    assert.deepEqual(await checks.checkSignedEcf(xml), signedHere);
    const archived = readSignedEcf(xml);
    assert.deepEqual([archived.verdict.ok, archived.parsed.ok], [false, true]);
    assert.deepEqual(await checks.readSignedEcf(xml), archived);
  });

  it('a thread stopped under a document gives a refusal, and the next document starts a new one', async () => {
    const slow = Buffer.from(`<ECF>${'<a/>'.repeat(1_000_000)}</ECF>`);
    const pending = checks.readReceivedEcf(slow);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await checks.close();
    assert.deepEqual(await pending, { kind: 'unreadable', message: 'The XML could not be processed.' });
    const xml = signedEcfWithLines(600);
    assert.equal((await checks.readReceivedEcf(xml)).kind, 'readable');
  });
});
