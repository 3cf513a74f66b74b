// A TCP pass-through in front of an HTTP server that never lets the answer to one kind of request through: once a
// connection carries a request whose head holds `marker` (e.g. `POST /testecf/emisorreceptor/fe/recepcion/api/ecf`),
// nothing more comes back on it. The server does its work and answers; the client waits in vain. That is the moment
// after a receiver kept a document and before its sender read the acknowledgement, held open for as long as a test
// needs (to kill the sender there).
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';

export interface HeldAnswerProxy {
  /** http://127.0.0.1:port */
  url: string;
  /** How many requests with the marker came through (their answers held back). */
  held(): number;
  /** Resolves when the first marked request comes through. */
  posted: Promise<void>;
  /** Resolves when the server first answers a marked request (held back), with how long after the request it did. */
  answerHeld: Promise<number>;
  close(): Promise<void>;
}

export async function startHeldAnswerProxy(
  target: { host: string; port: number },
  marker: string,
): Promise<HeldAnswerProxy> {
  const sockets = new Set<Socket>();
  let heldCount = 0;
  let markPosted: () => void = () => undefined;
  const posted = new Promise<void>((resolve) => {
    markPosted = resolve;
  });
  let markAnswered: (ms: number) => void = () => undefined;
  const answerHeld = new Promise<number>((resolve) => {
    markAnswered = resolve;
  });
  const server = createServer((client) => {
    const upstream = createConnection(target);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    }
    let heldSince: number | undefined;
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', cut);
    client.once('close', cut);
    // The server may close after its answer; a client whose answer is held must not learn of that either.
    const upstreamGone = () => {
      if (heldSince === undefined) cut();
      else upstream.destroy();
    };
    upstream.on('error', upstreamGone);
    upstream.once('close', upstreamGone);
    client.on('data', (chunk: Buffer) => {
      if (heldSince === undefined && chunk.includes(marker)) {
        heldSince = Date.now();
        heldCount++;
        upstream.write(chunk);
        markPosted();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (heldSince === undefined) client.write(chunk);
      else markAnswered(Date.now() - heldSince);
    });
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
  return {
    url: `http://127.0.0.1:${String(port)}`,
    held: () => heldCount,
    posted,
    answerHeld,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        for (const socket of sockets) socket.destroy();
      }),
  };
}
