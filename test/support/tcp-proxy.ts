// A TCP pass-through that a test can cut and restore, to make a real backend (Redis) disappear and come back
// at the same address without touching the backend itself.
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Destroys every piped connection and stops listening: clients see the backend go away. */
  pause(): Promise<void>;
  /** Destroys every piped connection but keeps listening: clients lose their connections and can reconnect at once. */
  cut(): void;
  /** Listens again on the same port. */
  resume(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  const server = createServer((client) => {
    const upstream = createConnection(target);
    track(client);
    track(upstream);
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', cut);
    upstream.on('error', cut);
    client.once('close', cut);
    upstream.once('close', cut);
    client.pipe(upstream);
    upstream.pipe(client);
  });

  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as AddressInfo).port);
      });
    });

  const destroyAll = () => {
    for (const socket of sockets) socket.destroy();
  };

  const stopListening = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) {
        resolve();
        return;
      }
      // close() waits for open connections, so they are destroyed right after asking it to stop.
      server.close(() => {
        resolve();
      });
      destroyAll();
    });

  const port = await listen(0);
  return {
    port,
    pause: stopListening,
    cut: destroyAll,
    async resume() {
      await listen(port);
    },
    close: stopListening,
  };
}
