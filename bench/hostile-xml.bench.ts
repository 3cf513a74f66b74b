// Measured here: how long the worst XML within the 5 MB limit holds the event loop at each XML entry point
// (signed-XML intake with an API key; the receiver's e-CF, commercial approval and signed-seed routes without any
// credential), while nothing else runs. The hold is the longest event-loop delay seen while the request is
// answered (perf_hooks.monitorEventLoopDelay, 1 ms resolution): what the API, the worker and the scheduler of the
// same process wait for. Goal: under 100 ms for any input the limits admit. The baseline is a real signed e-CF at
// the receiver, measured in the same rounds. Shapes the screen refuses (fiscal/xml/xml-shape.ts) cost one linear
// scan; shapes it admits (elements side by side, as many as 5 MB holds) go to the parsers, and are linear too.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { buildEcf } from '../src/fiscal/build/index.js';
import { signCanonicalDocument } from '../src/fiscal/xmldsig/index.js';
import { createSelfSignedP12 } from '../src/platform/crypto/test-certificate.js';
import { postgresAvailable } from '../test/support/backends.js';
import { ecfDocuments, ownedFieldsFor } from '../test/support/ecf-documents.js';
import { admittedXmlShapes, refusedXmlShapes } from '../test/support/hostile-xml.js';
import { nextRnc, startTestApp } from '../test/support/test-app.js';
import { testSigningKey } from '../test/support/xmldsig-kit.js';
import { deployed } from './support/deployed.js';
import { median, spread } from './support/statistics.js';
import { printTable, verdict, type BenchRow } from './support/table.js';

const ROUNDS = 3;
const GOAL_MS = 100;
const shapes: [string, string][] = [
  ...Object.entries(refusedXmlShapes).map(([name, make]): [string, string] => [`${name} (refused)`, make()]),
  ...Object.entries(admittedXmlShapes).map(([name, make]): [string, string] => [`${name} (admitted)`, make()]),
];

function signedEcf(buyer: string): string {
  const document = structuredClone(ecfDocuments['31']) as { Encabezado: { Comprador: Record<string, unknown> } };
  document.Encabezado.Comprador['RNCComprador'] = buyer;
  const built = buildEcf(document, { ...ownedFieldsFor('31'), eNCF: 'E310000000001' });
  if (!built.ok) throw new Error('bench e-CF does not build');
  return signCanonicalDocument(built.xml, testSigningKey());
}

/** The longest event-loop delay, in ms, while `send` is answered. */
async function holdOf(send: () => Promise<Response>): Promise<{ holdMs: number; status: number }> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const response = await send();
  await response.arrayBuffer();
  delay.disable();
  return { holdMs: delay.max / 1e6, status: response.status };
}

export async function hostileXmlBench(): Promise<BenchRow[]> {
  const embedded = !(await postgresAvailable());
  const testApp = await startTestApp({ embedded, ...deployed(), env: { RECEIVER_AUTH_MODE: 'optional' } });
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
    await testApp.sendEvent('certificate.installed', {
      companyId,
      p12Base64: certificate.p12.toString('base64'),
      password: 'clave',
    });
    const { apiKey } = await testApp.issueKey(companyId, ['documents:create']);
    const address = await testApp.app.listen({ port: 0, host: '127.0.0.1' });
    const post =
      (path: string, body: string, headers: Record<string, string> = {}) =>
      () =>
        fetch(`${address}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/xml', ...headers },
          body,
        });
    const entryPoints: [string, (xml: string) => () => Promise<Response>][] = [
      ['intake', (xml) => post('/api/v1/documentos/xml-firmado', xml, { 'x-api-key': apiKey })],
      ['e-CF', (xml) => post(`/testecf/${rnc}/fe/recepcion/api/ecf`, xml)],
      ['approval', (xml) => post(`/testecf/${rnc}/fe/aprobacioncomercial/api/ecf`, xml)],
      ['seed', (xml) => post(`/testecf/${rnc}/fe/autenticacion/api/validacioncertificado`, xml)],
    ];
    const cases: [string, string, [string, (xml: string) => () => Promise<Response>][]][] = [
      [
        'a signed e-CF 31 (baseline)',
        signedEcf(rnc),
        [entryPoints[1] as [string, (xml: string) => () => Promise<Response>]],
      ],
      ...shapes.map(([name, xml]): [string, string, typeof entryPoints] => [name, xml, entryPoints]),
    ];
    // Rounds go over every case in turn, so a drift of the machine's speed touches all of them alike.
    const holds = new Map<string, number[]>();
    const statuses = new Map<string, Set<number>>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, xml, points] of cases) {
        for (const [point, send] of points) {
          const { holdMs, status } = await holdOf(send(xml));
          const key = `${name}|${point}`;
          holds.set(key, [...(holds.get(key) ?? []), holdMs]);
          statuses.set(key, (statuses.get(key) ?? new Set()).add(status));
        }
      }
    }
    return cases.map(([name, xml, points]) => {
      const cells = points.map(([point]) => {
        const values = holds.get(`${name}|${point}`) ?? [];
        const { low, high } = spread(values);
        return {
          point,
          median: median(values),
          spread: high - low,
          statuses: [...(statuses.get(`${name}|${point}`) ?? [])].join('/'),
        };
      });
      const worst = Math.max(...cells.map((cell) => cell.median));
      return {
        benchmark: `event-loop hold, ${name}, ${(Buffer.byteLength(xml) / 1024 / 1024).toFixed(2)} MB`,
        result: cells.map((cell) => `${cell.point} ${cell.median.toFixed(0)} ms`).join(', '),
        note: `median of ${ROUNDS} rounds; spread ${cells.map((cell) => cell.spread.toFixed(0)).join('/')} ms; answered ${cells.map((cell) => cell.statuses).join(', ')}; ${testApp.application.database.kind}; goal < ${GOAL_MS} ms: ${verdict(worst < GOAL_MS)}`,
      };
    });
  } finally {
    await testApp.close();
  }
}

// `npx tsx bench/hostile-xml.bench.ts` runs this bench alone.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  printTable(await hostileXmlBench());
