// The console's page and assets (issue 45), beside the API it calls: /consola and every path under it answer the
// one page (the console routes in the browser), /consola/assets/<hashed name> the bundle and the stylesheet. The
// page is public, as the API's documentation is: it holds no data, and everything it shows comes from the API under
// the key the person types in.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../platform/http/route.js';
import { problem } from '../../platform/http/problems.js';
import type { ConsoleAssets, ConsoleFile } from './console-assets.js';

/** No inline script or style, nothing from another origin, no framing; PDFs are shown from blob: URLs. */
export const consoleContentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  'frame-src blob:',
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const bases = ['/consola', '/console'];

function send(request: FastifyRequest, reply: FastifyReply, file: ConsoleFile, cacheControl: string) {
  const gzip = /\bgzip\b/.test(request.headers['accept-encoding'] ?? '');
  void reply
    .header('content-type', file.type)
    .header('cache-control', cacheControl)
    .header('vary', 'accept-encoding')
    .header('x-content-type-options', 'nosniff');
  if (gzip) void reply.header('content-encoding', 'gzip');
  return reply.send(gzip ? file.gzip : file.body);
}

export function registerConsoleRoutes(app: App, built: ConsoleAssets): void {
  const page = (request: FastifyRequest, reply: FastifyReply) => {
    void reply
      .header('content-security-policy', consoleContentSecurityPolicy)
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'no-referrer')
      .header('cross-origin-opener-policy', 'same-origin');
    // The page names the current bundle: a browser asks again each time, and the bundle it names is cached for good.
    return send(request, reply, built.index, 'no-cache');
  };
  for (const base of bases) {
    app.get(base, { schema: { hide: true } }, page);
    app.get(`${base}/*`, { schema: { hide: true } }, page);
    app.get<{ Params: { name: string } }>(`${base}/assets/:name`, { schema: { hide: true } }, (request, reply) => {
      const file = built.assets.get(request.params.name);
      if (file === undefined) throw problem('route_not_found', `No console asset ${request.params.name}.`);
      return send(request, reply, file, 'public, max-age=31536000, immutable');
    });
  }
}
