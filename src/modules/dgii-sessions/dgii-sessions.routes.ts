// The DGII session routes (SPEC §4.3): a real connection test, and a session for a company that signs outside.
import { Type } from 'typebox';
import { Envelope, envelope, envelopeExample } from '../../platform/http/envelope.js';
import { problem, unwrap } from '../../platform/http/problems.js';
import { companyOf, defineRoute } from '../../platform/http/route.js';
import { signedSeedIllustration } from '../../platform/http/signed-xml-examples.js';
import { xmlOfBody } from '../../platform/http/xml-body.js';
import type { DgiiSessionsService } from './dgii-sessions.service.js';

const ProbeStep = Type.Object({
  step: Type.String({ enum: ['credentials', 'authentication', 'query'] }),
  ok: Type.Boolean(),
  outcome: Type.String(),
  detail: Type.String(),
  durationMs: Type.Number(),
});
const ConnectionTest = Type.Object(
  {
    ok: Type.Boolean(),
    steps: Type.Array(ProbeStep),
    sessionExpiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { description: "Each step's outcome; DGII's token is never shown." },
);
const Seed = Type.Object({
  seedXml: Type.String({
    description:
      "DGII's SemillaModel, to sign as it is (enveloped XMLDSig, the company's certificate) and hand back to POST /dgii/sesion.",
  }),
});
const SignedSeedBody = Type.Unsafe<unknown>({
  description: 'The signed seed: raw XML (application/xml), or JSON {"xml": "<SemillaModel>…</SemillaModel>"}.',
});
const Session = Type.Object({
  expiresAt: Type.String({
    format: 'date-time',
    description: "When DGII's session ends; the token itself is kept encrypted and never returned.",
  }),
});

export function dgiiSessionRoutes(sessions: DgiiSessionsService) {
  return [
    defineRoute({
      method: 'POST',
      url: '/api/v1/dgii/prueba-conexion',
      alias: '/api/v1/dgii/connection-test',
      auth: { kind: 'apiKey', scope: 'certification:manage' },
      docs: {
        operationId: 'testDgiiConnection',
        summary:
          "A real test of the connection, the certificate and DGII's authentication in the key's environment, step by step",
        tags: ['DGII'],
        examples: {
          response: envelopeExample({
            ok: true,
            steps: [
              { step: 'credentials', ok: true, outcome: 'certificate', detail: '', durationMs: 0 },
              { step: 'authentication', ok: true, outcome: 'session', detail: '', durationMs: 412 },
            ],
            sessionExpiresAt: '2026-11-27T15:30:00.000Z',
          }),
        },
      },
      schema: { response: { 200: Envelope(ConnectionTest) } },
      handler: async (request) => {
        const report = await sessions.testConnection(companyOf(request.principal));
        return envelope(request, { ...report, sessionExpiresAt: report.sessionExpiresAt?.toISOString() ?? null });
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/dgii/sesion/semilla',
      alias: '/api/v1/dgii/session/seed',
      auth: { kind: 'apiKey', scope: 'documents:send' },
      docs: {
        operationId: 'issueDgiiSeed',
        summary: 'A one-time DGII seed, for a company that signs outside the service',
        tags: ['DGII'],
        examples: {
          response: envelopeExample({
            seedXml:
              '<?xml version="1.0" encoding="utf-8"?><SemillaModel><valor>UaXCNIBZB6Ja6MTCzU+PFLTq…</valor><fecha>2026-11-27T10:30:00.7430000-04:00</fecha></SemillaModel>',
          }),
        },
      },
      schema: { response: { 200: Envelope(Seed) } },
      handler: async (request) => envelope(request, unwrap(await sessions.issueSeed())),
    }),
    defineRoute({
      method: 'POST',
      url: '/api/v1/dgii/sesion',
      alias: '/api/v1/dgii/session',
      auth: { kind: 'apiKey', scope: 'documents:send' },
      xmlBody: true,
      docs: {
        operationId: 'injectDgiiSession',
        summary:
          "Hand in the signed seed: DGII's session is stored for the company (encrypted) and used until it expires",
        description:
          'Used when the company has no certificate installed here; with one, the service authenticates by itself. 422 `dgii_session_refused` when DGII refuses the signature (e.g. a certificate not delegated for the company).',
        tags: ['DGII'],
        examples: {
          request: { xml: signedSeedIllustration },
          response: envelopeExample({ expiresAt: '2026-11-27T15:30:00.000Z' }),
        },
      },
      schema: { body: SignedSeedBody, response: { 200: Envelope(Session) } },
      handler: async (request) => {
        const xml = xmlOfBody(request.body);
        if (xml === undefined)
          throw problem('validation_failed', 'Send the signed seed as application/xml, or as JSON {"xml": "…"}.', [
            { pointer: '/xml', in: 'body', code: 'missing', detail: 'The signed seed is required.' },
          ]);
        return envelope(request, unwrap(await sessions.acceptSignedSeed(companyOf(request.principal), xml)));
      },
    }),
  ];
}
