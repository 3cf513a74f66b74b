// One delivery attempt over the wire: the host is resolved and checked here, and the connection goes to the
// address that was checked (no second lookup a DNS rebinding could answer differently). Redirects are not
// followed: a 3xx is a failure. The whole exchange is bounded by the timeout; at most 1 KB of the answer is kept.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolveTarget, type TargetPolicy } from '../../platform/http/target-policy.js';

export const responseExcerptBytes = 1_024;

export interface PostOutcome {
  /** The HTTP status; undefined when no answer came (refused target, connection error, timeout). */
  statusCode: number | undefined;
  durationMs: number;
  error: string | undefined;
  excerpt: string | undefined;
  retryAfter: string | undefined;
}

export async function postWebhook(input: {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  policy: TargetPolicy;
  now: () => number;
}): Promise<PostOutcome> {
  const started = input.now();
  const elapsed = () => Math.max(0, Math.round(input.now() - started));
  const failed = (error: string): PostOutcome => ({
    statusCode: undefined,
    durationMs: elapsed(),
    error,
    excerpt: undefined,
    retryAfter: undefined,
  });
  const url = new URL(input.url);
  const target = await resolveTarget(url.hostname, input.policy);
  if (!target.ok) return failed(`target refused: ${target.reason}`);
  const [pinned] = target.addresses;
  if (pinned === undefined) return failed('target refused: no address');
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all === true) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<PostOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const request = send(
      url,
      {
        method: 'POST',
        lookup,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(input.body)),
          'user-agent': 'ecf-service-webhooks/1',
          ...input.headers,
        },
      },
      (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on('data', (chunk: Buffer) => {
          if (kept < responseExcerptBytes) {
            chunks.push(chunk.subarray(0, responseExcerptBytes - kept));
            kept += Math.min(chunk.length, responseExcerptBytes - kept);
          }
        });
        response.on('end', () => {
          const statusCode = response.statusCode ?? 0;
          const retryAfter = response.headers['retry-after'];
          const ok = statusCode >= 200 && statusCode < 300;
          finish({
            statusCode,
            durationMs: elapsed(),
            error: ok
              ? undefined
              : statusCode >= 300 && statusCode < 400
                ? `HTTP ${String(statusCode)}: redirects are not followed`
                : `HTTP ${String(statusCode)}`,
            excerpt: Buffer.concat(chunks).toString('utf8'),
            retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
          });
        });
        response.on('error', (error) => {
          finish(failed(`response failed: ${error.message}`));
        });
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      finish(failed(`no answer within ${String(input.timeoutMs)} ms`));
    }, input.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => {
      finish(failed(`request failed: ${error.code ?? error.message}`));
    });
    request.end(input.body);
  });
}
