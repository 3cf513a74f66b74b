// Every realistic scenario document (test/support/ecf-scenarios.ts) is valid for the rules,
// built, signed, valid against DGII's official XSDs (our validator and xmllint), verified (ours and xmlsec1) and
// parsed back to the model that was built; and each shows the one value it is there for.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { buildEcf, normaliseEcf, type BuildResult, type EcfObject } from '../src/fiscal/build/index.js';
import { ecfTypes } from '../src/fiscal/model/ecf-model-types.js';
import { parseEcf } from '../src/fiscal/parse/index.js';
import { validateEcfDocument } from '../src/fiscal/validate-ecf.js';
import { signCanonicalDocument, verifyEnvelopedSignature } from '../src/fiscal/xmldsig/index.js';
import { compileSchemaSet } from '../src/fiscal/xsd/index.js';
import { readOfficialXsds } from './support/dgii-files.js';
import { ecfDocuments, ownedFieldsFor } from './support/ecf-documents.js';
import { ecfScenarios, type EcfScenario } from './support/ecf-scenarios.js';
import { requireTool } from './support/tools.js';
import { testSigningKey, verifyWithXmlsec1 } from './support/xmldsig-kit.js';
import { validateWithOfficialXsd } from './support/xmllint.js';

const now = new Date('2026-11-21T12:00:00Z');
const key = testSigningKey();
const schemas = compileSchemaSet(readOfficialXsds());
after(() => {
  schemas.dispose();
});

/** The value at `path` in a built document, array elements by index. */
function valueAt(document: unknown, path: readonly string[]): unknown {
  let value = document;
  for (const step of path) {
    if (Array.isArray(value)) value = (value as unknown[])[Number(step)];
    else if (typeof value === 'object' && value !== null) value = (value as Record<string, unknown>)[step];
    else return undefined;
  }
  return value;
}

interface Pipeline {
  built: Extract<BuildResult, { ok: true }>;
  /** The document as built, in values. */
  document: EcfObject;
  signed: string;
}

/** Built and signed once per scenario, on first use, so a failure is one test's, not the file's. */
function pipelineOf(scenario: EcfScenario): () => Pipeline {
  let pipeline: Pipeline | undefined;
  return () => {
    if (pipeline !== undefined) return pipeline;
    const built = buildEcf(scenario.document, ownedFieldsFor(scenario.type));
    if (!built.ok) assert.fail(`buildEcf refused the document: ${JSON.stringify(built.findings)}`);
    const normalised = normaliseEcf(scenario.document, ownedFieldsFor(scenario.type));
    if (!normalised.ok) assert.fail(`normaliseEcf refused the document: ${JSON.stringify(normalised.findings)}`);
    pipeline = { built, document: normalised.document, signed: signCanonicalDocument(built.xml, key) };
    return pipeline;
  };
}

describe('realistic e-CF scenarios', () => {
  it('give every type at least three realistic documents together with ecf-documents.ts', () => {
    for (const type of ecfTypes) {
      const count = (type in ecfDocuments ? 1 : 0) + ecfScenarios.filter((scenario) => scenario.type === type).length;
      assert.ok(count >= 3, `type ${type} has ${String(count)} documents`);
    }
  });

  it('have distinct names', () => {
    assert.equal(new Set(ecfScenarios.map((scenario) => scenario.name)).size, ecfScenarios.length);
  });

  it('put type 32 on both sides of the DOP 250,000 rule: at it the buyer must be identified, under it not', () => {
    const at = ecfScenarios.find(
      (scenario) =>
        scenario.type === '32' && valueAt(scenario.document, ['Encabezado', 'Totales', 'MontoTotal']) === '250000.00',
    );
    const under = ecfScenarios.find(
      (scenario) =>
        scenario.type === '32' && valueAt(scenario.document, ['Encabezado', 'Comprador', 'RNCComprador']) === undefined,
    );
    assert.ok(at !== undefined && under !== undefined);
    const anonymous = structuredClone(at.document);
    const buyer = valueAt(anonymous, ['Encabezado', 'Comprador']) as Record<string, unknown>;
    delete buyer.RNCComprador;
    const codes = validateEcfDocument(anonymous, { now }).findings.map((finding) => finding.code);
    assert.deepEqual(codes, ['buyer_required_from_250000']);
    assert.deepEqual(validateEcfDocument(under.document, { now }).findings, []);
  });

  for (const scenario of ecfScenarios) {
    describe(scenario.name, () => {
      const pipeline = pipelineOf(scenario);

      it('has totals that agree with its lines', () => {
        assert.deepEqual(scenario.totalsFindings, []);
      });

      it('passes validateEcfDocument without findings', () => {
        const result = validateEcfDocument(scenario.document, { now });
        assert.deepEqual(result.findings, []);
        assert.equal(result.acceptable, true);
      });

      it(`builds, with ${scenario.shows.path.join('/')} = ${scenario.shows.value}`, () => {
        const { built, document } = pipeline();
        assert.deepEqual(built.warnings, []);
        assert.equal(valueAt(document, scenario.shows.path), scenario.shows.value);
        assert.equal(valueAt(document, ['Encabezado', 'IdDoc', 'TipoeCF']), scenario.type);
      });

      it('is valid against the official XSD once signed (our validator)', () => {
        assert.deepEqual(schemas.validate(`e-CF-${scenario.type}`, pipeline().signed), []);
      });

      it('is valid against the official XSD once signed (xmllint)', (t) => {
        if (!requireTool(t, 'xmllint')) return;
        const result = validateWithOfficialXsd(`e-CF-${scenario.type}.xsd`, pipeline().signed);
        assert.ok(result.valid, result.errors);
      });

      it('verifies with our verifier', () => {
        const result = verifyEnvelopedSignature(pipeline().signed);
        assert.equal(result.ok, true, JSON.stringify(result));
      });

      it('verifies in xmlsec1', (t) => {
        if (!requireTool(t, 'xmlsec1')) return;
        const verdict = verifyWithXmlsec1(pipeline().signed, key.certificatePem);
        assert.ok(verdict.ok, verdict.output);
      });

      it('parses back to the document that was built', () => {
        const { document, signed } = pipeline();
        assert.deepEqual(parseEcf(signed), { ok: true, document });
      });
    });
  }
});
