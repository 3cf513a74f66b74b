import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createHttpTransport } from './transport.js';

describe('HTTP transport, pinned addresses', () => {
  let server: Server;
  let port: number;
  let connections = 0;
  const hosts: string[] = [];
  const transport = createHttpTransport({ connectMs: 2_000, responseMs: 2_000 });

  before(async () => {
    server = createServer((request, reply) => {
      hosts.push(request.headers.host ?? '');
      reply.end('ok');
    });
    server.on('connection', () => {
      connections++;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    transport.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('goes to the pinned address without asking DNS, keeping one connection alive for the calls that follow', async () => {
    const url = `http://receptor.example.invalid:${String(port)}/fe/recepcion/api/ecf`;
    for (let call = 0; call < 3; call++) {
      const result = await transport({ method: 'GET', url, headers: {}, pinned: { address: '127.0.0.1', family: 4 } });
      assert.ok(result.ok, JSON.stringify(result));
      assert.equal(result.body.toString(), 'ok');
    }
    assert.equal(connections, 1, 'a connection per call');
    assert.deepEqual(hosts, Array(3).fill(`receptor.example.invalid:${String(port)}`));
  });

  it('never hands a call pinned elsewhere a connection kept for another address of the same host', async () => {
    // Nothing listens at 127.0.0.2: a reused connection to 127.0.0.1 would have answered.
    const result = await transport({
      method: 'GET',
      url: `http://receptor.example.invalid:${String(port)}/fe/recepcion/api/ecf`,
      headers: {},
      pinned: { address: '127.0.0.2', family: 4 },
    });
    assert.deepEqual(result, { ok: false, failure: 'connect_refused', sent: false, code: 'ECONNREFUSED' });
    assert.equal(connections, 1);
  });
});
