// Requests per second through the whole stack (Fastify, auth lookup in the database, envelope) against a
// listening server, with autocannon on the same machine: read as a trend, not an absolute.
import type autocannon from 'autocannon';
import { startTestApp } from '../test/support/test-app.js';
import { deployed } from './support/deployed.js';
import { childJson } from './support/load.js';
import type { BenchRow } from './support/table.js';

/** autocannon in its own process, so the load generator does not share the server's event loop. */
function measure(url: string, headers: Record<string, string>, seconds: number): Promise<autocannon.Result> {
  const args = [
    'node_modules/autocannon/autocannon.js',
    '--json',
    '--connections',
    '20',
    '--duration',
    String(seconds),
  ];
  for (const [name, value] of Object.entries(headers)) args.push('--headers', `${name}=${value}`);
  return childJson<autocannon.Result>([...args, url]);
}

export async function httpBench(): Promise<BenchRow[]> {
  const testApp = await startTestApp(deployed());
  try {
    const companyId = await testApp.provisionCompany();
    const { apiKey } = await testApp.issueKey(companyId, ['documents:read']);
    const address = await testApp.app.listen({ port: 0, host: '127.0.0.1' });
    const backend = `${testApp.application.database.kind}, cache ${testApp.application.cache.kind}`;
    const rows: BenchRow[] = [];
    for (const [name, path, headers] of [
      ['GET /health', '/health', {}],
      ['GET /api/v1/empresa (key auth + 3 queries)', '/api/v1/empresa', { 'x-api-key': apiKey }],
      ['GET /ready (4 live probes)', '/ready', {}],
    ] as const) {
      await measure(`${address}${path}`, headers, 2); // warm-up: JIT, pools, caches
      const result = await measure(`${address}${path}`, headers, 5);
      const failed = result.non2xx + result.errors;
      rows.push({
        benchmark: name,
        result: `${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms`,
        note: `${backend}${failed > 0 ? `; ${failed} failed` : ''}`,
      });
    }
    return rows;
  } finally {
    await testApp.close();
  }
}
