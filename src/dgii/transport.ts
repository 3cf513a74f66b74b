// HTTP to DGII over node:http(s) rather than fetch, because exactly-once sending needs to know how far a request
// got when it failed: whether a connection was ever made, and whether the whole request was written before the
// connection broke or the answer stopped coming. fetch hides both. Explicit connect and response timeouts; TLS 1.2
// or newer only (research/dgii-protocol.md §1.3); keep-alive, so a burst of sends does not handshake per document.
import { randomBytes } from 'node:crypto';
import {
  Agent as HttpAgent,
  request as httpRequest,
  type ClientRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import { settings } from '../config.js';

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** The host's address, instead of DNS: the one a target check approved (no second lookup to rebind). */
  pinned?: PinnedAddress;
  /** An answer longer than this is a failure (`too_large`); default 5 MB. */
  maxResponseBytes?: number;
}

export interface PinnedAddress {
  address: string;
  family: number;
}

export type TransportFailure =
  | 'dns'
  | 'connect_refused'
  | 'connect_timeout'
  | 'connect_failed'
  /** The connection broke (reset, closed) with no complete answer. */
  | 'broken'
  /** Connected, and no complete answer within the response timeout. */
  | 'response_timeout'
  /** The answer ran past the request's maxResponseBytes: it was cut off. */
  | 'too_large';

export type HttpResult =
  | { ok: true; status: number; headers: IncomingHttpHeaders; body: Buffer }
  | {
      ok: false;
      failure: TransportFailure;
      /** The whole request was handed to the connection: the server may have acted on it. */
      sent: boolean;
      /** The system error code, e.g. ECONNRESET; safe to log. */
      code: string | undefined;
    };

export type HttpTransport = (request: HttpRequest) => Promise<HttpResult>;

export interface TransportOptions {
  connectMs: number;
  /** From connection to the end of the answer. */
  responseMs: number;
  /** Connections kept per host (default twice the default SEND_CONCURRENCY, as app.ts gives the DGII client). */
  maxSockets?: number | undefined;
}

/** No DGII answer is near this; a body past it is not read further (the status still counts). */
const maxResponseBytes = 5 * 1024 * 1024;

/** Pools kept for pinned addresses (a receiver each, mostly); past this the oldest is closed. */
const maxPinnedPools = 256;

/** Idle keep-alive connections are dropped before a server's own idle timeout (IIS 120 s, Node 5 s) can race a
 * new request on them: such a race looks like a reset after sending, which would make a send uncertain. */
const idleSocketMs = 4_000;

const dnsCodes = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME']);
const refusedCodes = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

class TimeoutSignal extends Error {
  constructor(readonly failure: 'connect_timeout' | 'response_timeout') {
    super(failure);
  }
}

export function createHttpTransport(options: TransportOptions): HttpTransport & { close(): void } {
  const maxSockets = options.maxSockets ?? 2 * settings.SEND_CONCURRENCY.default;
  const httpAgent = new HttpAgent({ keepAlive: true, maxSockets, timeout: idleSocketMs, scheduling: 'lifo' });
  const httpsAgent = new HttpsAgent({
    keepAlive: true,
    maxSockets,
    timeout: idleSocketMs,
    scheduling: 'lifo',
    minVersion: 'TLSv1.2',
  });

  // A pinned address gets a pool of its own, so a kept-alive connection always leads to the address checked for
  // this request: a pool per host could hand out one opened to whatever the host resolved to before. One
  // connection per call instead cost a TCP (and, over https, a TLS) handshake per delivery on both sides.
  const pinnedPools = new Map<string, { agent: HttpAgent | HttpsAgent; lookup: LookupFunction }>();
  const pinnedPool = (secure: boolean, host: string, pinned: PinnedAddress) => {
    const key = `${secure ? 'https' : 'http'}|${host}|${pinned.address}`;
    const found = pinnedPools.get(key);
    if (found !== undefined) {
      // Most recently used last: the oldest is the first to go.
      pinnedPools.delete(key);
      pinnedPools.set(key, found);
      return found;
    }
    const agentOptions = { keepAlive: true, maxSockets, timeout: idleSocketMs, scheduling: 'lifo' as const };
    const pool = {
      agent: secure ? new HttpsAgent({ ...agentOptions, minVersion: 'TLSv1.2' }) : new HttpAgent(agentOptions),
      lookup: ((_hostname, options, callback) => {
        if (options.all === true) callback(null, [{ address: pinned.address, family: pinned.family }]);
        else callback(null, pinned.address, pinned.family);
      }) as LookupFunction,
    };
    pinnedPools.set(key, pool);
    if (pinnedPools.size > maxPinnedPools) {
      const [oldest] = pinnedPools;
      if (oldest !== undefined) {
        pinnedPools.delete(oldest[0]);
        oldest[1].agent.destroy();
      }
    }
    return pool;
  };

  const send: HttpTransport = (request) =>
    new Promise<HttpResult>((resolve) => {
      const url = new URL(request.url);
      const secure = url.protocol === 'https:';
      const headers = {
        ...request.headers,
        ...(request.body === undefined ? {} : { 'content-length': String(request.body.length) }),
      };
      let connected = false;
      let sent = false;
      let settled = false;
      let timedOut: 'connect_timeout' | 'response_timeout' | undefined;
      const timers: { connect?: NodeJS.Timeout; response?: NodeJS.Timeout } = {};
      const finish = (result: HttpResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timers.connect);
        clearTimeout(timers.response);
        resolve(result);
      };
      const fail = (error: unknown) => {
        // A timeout destroys the request, and the errors that follow may come from the response instead.
        if (timedOut !== undefined || error instanceof TimeoutSignal) {
          finish({ ok: false, failure: timedOut ?? (error as TimeoutSignal).failure, sent, code: undefined });
          return;
        }
        const code = (error as { code?: unknown }).code;
        const text = typeof code === 'string' ? code : undefined;
        let failure: TransportFailure;
        if (text !== undefined && dnsCodes.has(text)) failure = 'dns';
        else if (text !== undefined && refusedCodes.has(text)) failure = 'connect_refused';
        else failure = connected ? 'broken' : 'connect_failed';
        finish({ ok: false, failure, sent, code: text });
      };

      let client: ClientRequest;
      const pool = request.pinned === undefined ? undefined : pinnedPool(secure, url.host, request.pinned);
      const requestOptions =
        pool === undefined
          ? { method: request.method, headers, agent: secure ? httpsAgent : httpAgent }
          : { method: request.method, headers, agent: pool.agent, lookup: pool.lookup };
      try {
        client = secure ? httpsRequest(url, requestOptions) : httpRequest(url, requestOptions);
      } catch (error) {
        fail(error);
        return;
      }
      const startResponseTimer = () => {
        connected = true;
        clearTimeout(timers.connect);
        timers.response = setTimeout(() => {
          timedOut = 'response_timeout';
          client.destroy(new TimeoutSignal('response_timeout'));
        }, options.responseMs);
      };
      client.on('socket', (socket: Socket) => {
        // A kept-alive socket is connected already; a new one is connected once DNS, TCP (and TLS) are done. The
        // clock starts here, not at the call: waiting for a free socket of the pool is not DGII's slowness.
        if (!socket.connecting) {
          startResponseTimer();
          return;
        }
        timers.connect = setTimeout(() => {
          timedOut = 'connect_timeout';
          client.destroy(new TimeoutSignal('connect_timeout'));
        }, options.connectMs);
        socket.once(secure ? 'secureConnect' : 'connect', startResponseTimer);
      });
      client.on('finish', () => {
        sent = true;
      });
      client.on('error', fail);
      client.on('response', (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const limit = request.maxResponseBytes ?? maxResponseBytes;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= limit) {
            chunks.push(chunk);
            return;
          }
          finish({ ok: false, failure: 'too_large', sent, code: undefined });
          client.destroy();
        });
        response.on('end', () => {
          finish({
            ok: true,
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
          });
        });
        response.on('error', fail);
        response.on('aborted', () => {
          fail(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
        });
      });
      client.end(request.body);
    });

  return Object.assign(send, {
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
      for (const pool of pinnedPools.values()) pool.agent.destroy();
      pinnedPools.clear();
    },
  });
}

/** multipart/form-data with one file part `xml`, as DGII's services take documents (research §1.2), built whole so
 * that it carries a Content-Length: DGII refuses a chunked body with "Multipart cannot be empty" (§1.3). */
export function xmlMultipart(xml: Buffer, fileName: string): { body: Buffer; contentType: string } {
  const boundary = `----ecf${randomBytes(12).toString('hex')}`;
  // A file name is ours (RNC + e-NCF), but quotes or line breaks in it would break the part header.
  const safeName = fileName.replace(/["\r\n\\]/g, '_');
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="xml"; filename="${safeName}"\r\nContent-Type: text/xml\r\n\r\n`;
  const body = Buffer.concat([Buffer.from(head, 'utf8'), xml, Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8')]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}
