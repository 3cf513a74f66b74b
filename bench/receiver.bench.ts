// Measured here: e-CF received at the receiver route (POST /{env}/{segment}/fe/recepcion/api/ecf) and answered
// with a signed ARECF: parse, XSD, signature, duplicate check, archive the received bytes and the ARECF, insert,
// sign the ARECF. Each request carries its own e-CF (a fresh e-NCF, signed by the issuer), with the receiver token
// required, as DGII and other taxpayers call it. Goals on the 2-core reference machine: >= 500 e-CF/s, and p99 <= 20 ms
// at a steady 100 e-CF/s. Both are measured once the receiver has settled: its first few thousand e-CF run while V8
// still optimises it (measured after a 2 s warm-up, over consecutive 3 s windows of fresh e-CF: 314, 447, 589, 613,
// 573, 670 e-CF/s, app CPU per e-CF 4.4 ms falling to 1.7-1.9 ms), and a receiver runs for days; the warm-up's own
// rate is in the note. PostgreSQL when it answers, else the embedded back ends. DGII's XSDs are read from
// ../shared/dgii/xsd (ECF_XSD_DIR, as a deployment sets it); without them the schema check is left out, and the note
// says so. BENCH_RECEIVER_PROFILE=<file> writes a CPU profile of the saturated run.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { buildEcf } from '../src/fiscal/build/index.js';
import { signCanonicalDocument, signXml } from '../src/fiscal/xmldsig/index.js';
import { createSelfSignedP12 } from '../src/platform/crypto/test-certificate.js';
import { postgresAvailable } from '../test/support/backends.js';
import { officialXsdDir } from '../test/support/dgii-files.js';
import { ecfDocuments, ownedFieldsFor } from '../test/support/ecf-documents.js';
import { nextRnc, startTestApp } from '../test/support/test-app.js';
import { testSigningKey } from '../test/support/xmldsig-kit.js';
import { deployed } from './support/deployed.js';
import { runLoad } from './support/load.js';
import { ownUsage } from './support/process-cpu.js';
import { profiled } from './support/profile.js';
import { ms } from './support/statistics.js';
import { printTable, verdict, type BenchRow } from './support/table.js';

const CONNECTIONS = 20;
const WARM_UP_SECONDS = 10;
const SECONDS = 5;
const FIXED_RATE = 100;
const FIXED_RATE_SECONDS = 5;
/**
 * A rest between the saturated run and the steady one, so the steady run measures a receiver serving 100/s, not one
 * still working off the burst before it (measured, four runs each: right after the burst, p99 13, 183, 14 and 28 ms;
 * after a 5 s rest, 9.1, 11, 10.5 and 15.5 ms; no checkpoint in either, V8's major collections under 20 ms).
 */
const SETTLE_MS = 5_000;
const SUSTAINED_GOAL = 500;
const P99_GOAL_MS = 20;
/** Enough distinct e-CF that no measured run sends one twice (a repeat is answered as a duplicate, a different
 * path): up to 1,000/s for the saturated run, then the steady run's. A warm-up past its 6,000 repeats some, which
 * warms the same code. */
const WARM_UP_DOCUMENTS = 6_000;
const DOCUMENTS = WARM_UP_DOCUMENTS + 1_000 * SECONDS + FIXED_RATE * FIXED_RATE_SECONDS + 1;

/** `count` type-31 e-CF from one issuer to `buyer`, each with its own e-NCF, signed. */
function signedEcfs(buyer: string, count: number): string[] {
  const key = testSigningKey();
  const document = structuredClone(ecfDocuments['31']) as { Encabezado: { Comprador: Record<string, unknown> } };
  document.Encabezado.Comprador['RNCComprador'] = buyer;
  return Array.from({ length: count }, (_, i) => {
    const built = buildEcf(document, { ...ownedFieldsFor('31'), eNCF: `E31${String(i + 1).padStart(10, '0')}` });
    if (!built.ok) throw new Error(`bench e-CF does not build: ${JSON.stringify(built.findings[0])}`);
    return signCanonicalDocument(built.xml, key);
  });
}

export async function receiverBench(): Promise<BenchRow[]> {
  const embedded = !(await postgresAvailable());
  const xsd = existsSync(officialXsdDir) ? officialXsdDir : undefined;
  const testApp = await startTestApp({
    embedded,
    ...deployed(),
    env: { RECEIVER_AUTH_MODE: 'required', ...(xsd === undefined ? {} : { ECF_XSD_DIR: xsd }) },
  });
  try {
    const rnc = nextRnc();
    const companyId = await testApp.provisionCompany({ rnc });
    const certificate = createSelfSignedP12({
      commonName: 'RECEPTOR DE PRUEBA',
      serialNumber: rnc,
      notBefore: new Date('2026-01-01'),
      notAfter: new Date('2036-01-01'),
      password: 'clave',
    });
    const installed = await testApp.sendEvent('certificate.installed', {
      companyId,
      p12Base64: certificate.p12.toString('base64'),
      password: 'clave',
    });
    if (installed.statusCode !== 200)
      throw new Error(`certificate install failed: ${installed.statusCode} ${installed.body}`);
    const base = `/testecf/${rnc}/fe`;

    const seed = await testApp.app.inject({ method: 'GET', url: `${base}/autenticacion/api/semilla` });
    const answer = await testApp.app.inject({
      method: 'POST',
      url: `${base}/autenticacion/api/validacioncertificado`,
      headers: { 'content-type': 'application/xml', accept: 'application/json' },
      payload: signXml(seed.body, testSigningKey()),
    });
    if (answer.statusCode !== 200) throw new Error(`receiver token refused: ${answer.statusCode} ${answer.body}`);
    const headers = {
      authorization: `Bearer ${answer.json<{ token: string }>().token}`,
      'content-type': 'application/xml',
    };

    const documents = signedEcfs(rnc, DOCUMENTS);
    const probe = await testApp.app.inject({
      method: 'POST',
      url: `${base}/recepcion/api/ecf`,
      headers,
      payload: documents[0],
    });
    if (probe.statusCode !== 200 || !probe.body.includes('<Estado>0</Estado>'))
      throw new Error(`bench e-CF not received: ${probe.statusCode} ${probe.body}`);

    const address = await testApp.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `${address}${base}/recepcion/api/ecf`;
    const backend = `${testApp.application.database.kind}, blobs ${testApp.config.storage.kind}, XSD ${xsd === undefined ? 'not checked (no ../shared/dgii/xsd)' : 'checked'}`;
    // Disjoint slices: the probe took the first; the warm-up, the saturated run and the steady run take the rest.
    const steadyCount = FIXED_RATE * FIXED_RATE_SECONDS;
    const warmUp = documents.slice(1, WARM_UP_DOCUMENTS + 1);
    const saturating = documents.slice(WARM_UP_DOCUMENTS + 1, DOCUMENTS - steadyCount);
    const steadyBodies = documents.slice(DOCUMENTS - steadyCount);
    const rows: BenchRow[] = [];

    const warm = await runLoad({
      url,
      headers,
      bodies: warmUp,
      expectStatus: 200,
      seconds: WARM_UP_SECONDS,
      mode: { connections: CONNECTIONS },
    });
    // The load generator is another process: this process's CPU (thread pool included) is the app's alone, counted
    // from when the load's spec (its thousands of bodies) is written.
    let since = ownUsage();
    const saturated = await profiled('BENCH_RECEIVER_PROFILE', () =>
      runLoad(
        { url, headers, bodies: saturating, expectStatus: 200, seconds: SECONDS, mode: { connections: CONNECTIONS } },
        () => {
          since = ownUsage();
        },
      ),
    );
    const cpuMsPerEcf = since().cpuMs / saturated.sent;
    const failed = saturated.failed + saturated.unanswered;
    const repeats = saturated.sent > saturating.length ? '; some e-CF sent twice (raise DOCUMENTS)' : '';
    rows.push({
      benchmark: `receiver: e-CF in, signed ARECF out, ${CONNECTIONS} connections`,
      result: `${saturated.achievedRate.toFixed(0)} e-CF/s, p50 ${ms(saturated.p50)}, p99 ${ms(saturated.p99)}`,
      note: `${backend}; after ${String(warm.sent)} e-CF of warm-up (${warm.achievedRate.toFixed(0)}/s over its ${String(WARM_UP_SECONDS)} s, from start); app CPU per e-CF ${cpuMsPerEcf.toFixed(2)} ms${failed > 0 ? `; ${failed} failed ${JSON.stringify(saturated.statuses)}` : ''}${repeats}; goal >= ${SUSTAINED_GOAL}/s: ${verdict(saturated.achievedRate >= SUSTAINED_GOAL && failed === 0)}`,
    });

    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const steady = await runLoad({
      url,
      headers,
      bodies: steadyBodies,
      expectStatus: 200,
      seconds: FIXED_RATE_SECONDS,
      mode: { rate: FIXED_RATE },
    });
    const incomplete = steady.failed + steady.unanswered > 0;
    rows.push({
      benchmark: `receiver: e-CF in, signed ARECF out, steady ${FIXED_RATE}/s (open loop)`,
      result: `p50 ${ms(steady.p50)}, p99 ${ms(steady.p99)}, max ${ms(steady.max)}`,
      note: `${backend}${incomplete ? `; ${steady.failed} failed, ${steady.unanswered} unanswered ${JSON.stringify(steady.statuses)}` : ''}; goal p99 <= ${P99_GOAL_MS} ms: ${verdict(steady.p99 <= P99_GOAL_MS && !incomplete)}`,
    });
    return rows;
  } finally {
    await testApp.close();
  }
}

// `npx tsx bench/receiver.bench.ts` runs this bench alone.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  printTable(await receiverBench());
