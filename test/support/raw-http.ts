// HTTP/1.1 on a bare socket, for what fetch will not send (a bad percent-encoding, an unknown method, a NUL in a
// header, a made-up Expect) and for what happens to a connection after an answer (is the next request served?).
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawExchange {
  responses: RawResponse[];
  /** The server closed the connection (or reset it) before `expected` answers arrived. */
  closed: boolean;
}

/** Parses every complete response in `data` (Content-Length framed, as this service answers). */
function parseResponses(data: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let at = 0;
  for (;;) {
    const headEnd = data.indexOf('\r\n\r\n', at);
    if (headEnd === -1) return responses;
    const [statusLine = '', ...lines] = data.subarray(at, headEnd).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? '0');
    if (data.length < headEnd + 4 + length) return responses;
    responses.push({
      status: Number(statusLine.split(' ')[1]),
      headers,
      body: data.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8'),
    });
    at = headEnd + 4 + length;
  }
}

/**
 * Writes `chunks` in order on one connection and reads until `expected` answers arrived, the server closed the
 * connection, or `timeoutMs` passed (then it rejects: a connection left hanging is what this catches).
 */
export function rawExchange(
  port: number,
  chunks: (string | Buffer)[],
  expected: number,
  timeoutMs = 10_000,
): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ responses: parseResponses(received), closed });
    };
    const timer = setTimeout(() => {
      settled = true;
      socket.destroy();
      reject(
        new Error(`no answer within ${timeoutMs} ms; received so far: ${received.toString('latin1').slice(0, 500)}`),
      );
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (parseResponses(received).length >= expected) finish(false);
    });
    socket.on('close', () => {
      finish(true);
    });
    // A reset after the answer (the server stopped reading) still leaves what was received to judge.
    socket.on('error', () => {
      finish(true);
    });
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
    });
  });
}
