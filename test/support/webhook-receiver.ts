// A real HTTP receiver of webhooks for tests, as an integrator would write one: it verifies each delivery with the
// `standardwebhooks` library (a client nobody here wrote), once through the standard `webhook-*` headers and once
// through the service's `X-Service-*` headers, and answers 401 when either fails. What it answers otherwise is up to
// the test (status, headers, body, a delay).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedDelivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Real time of arrival (ms). */
  at: number;
  /** What verification said: undefined when it passed, the library's error otherwise. */
  standardError: string | undefined;
  serviceError: string | undefined;
  /** The status the receiver answered. */
  answered: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
}

export interface WebhookReceiver {
  url: string;
  deliveries: ReceivedDelivery[];
  /** The secret deliveries are verified with (per path prefix '/' unless set for a path). */
  secretFor: Map<string, string>;
  answer: (delivery: ReceivedDelivery) => Answer;
  /** Verifies a delivery (or a forged copy of one) with the library, through the chosen headers; the error, or undefined. */
  verify(
    delivery: Pick<ReceivedDelivery, 'headers' | 'body'>,
    secret: string,
    via?: 'standard' | 'service',
  ): string | undefined;
  /** Until `count` deliveries matching `predicate` have arrived. */
  waitFor(
    count: number,
    predicate?: (delivery: ReceivedDelivery) => boolean,
    timeoutMs?: number,
  ): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

function headerText(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return typeof value === 'string' ? value : '';
}

export function verifyDelivery(
  delivery: Pick<ReceivedDelivery, 'headers' | 'body'>,
  secret: string,
  via: 'standard' | 'service' = 'standard',
): string | undefined {
  const headers =
    via === 'standard'
      ? {
          'webhook-id': headerText(delivery.headers, 'webhook-id'),
          'webhook-timestamp': headerText(delivery.headers, 'webhook-timestamp'),
          'webhook-signature': headerText(delivery.headers, 'webhook-signature'),
        }
      : {
          'webhook-id': headerText(delivery.headers, 'x-service-delivery'),
          'webhook-timestamp': headerText(delivery.headers, 'x-service-timestamp'),
          'webhook-signature': headerText(delivery.headers, 'x-service-signature'),
        };
  try {
    new Webhook(secret).verify(delivery.body, headers);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const deliveries: ReceivedDelivery[] = [];
  const secretFor = new Map<string, string>();
  const receiver = {
    url: '',
    deliveries,
    secretFor,
    answer: (_delivery: ReceivedDelivery): Answer => ({ status: 200, body: 'ok' }),
    verify: verifyDelivery,
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const secret = secretFor.get(path) ?? secretFor.get('/');
      const body = Buffer.concat(chunks).toString('utf8');
      const delivery: ReceivedDelivery = {
        path,
        headers: request.headers,
        body,
        at: Date.now(),
        standardError: undefined,
        serviceError: undefined,
        answered: 0,
      };
      if (secret !== undefined) {
        delivery.standardError = verifyDelivery(delivery, secret, 'standard');
        delivery.serviceError = verifyDelivery(delivery, secret, 'service');
      }
      const verified = delivery.standardError === undefined && delivery.serviceError === undefined;
      const answer: Answer = verified
        ? receiver.answer(delivery)
        : { status: 401, body: `signature: ${delivery.standardError ?? delivery.serviceError ?? ''}` };
      delivery.answered = answer.status;
      deliveries.push(delivery);
      setTimeout(() => {
        if (response.destroyed) return;
        response.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        response.end(answer.body ?? '');
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  return Object.assign(receiver, {
    async waitFor(count: number, predicate: (delivery: ReceivedDelivery) => boolean = () => true, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matching = deliveries.filter(predicate);
        if (matching.length >= count) return matching;
        if (Date.now() > deadline)
          throw new Error(
            `${String(matching.length)} of ${String(count)} deliveries arrived within ${String(timeoutMs)} ms`,
          );
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  });
}
