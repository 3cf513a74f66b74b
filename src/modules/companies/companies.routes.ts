import { Envelope, envelope, envelopeExample } from '../../platform/http/envelope.js';
import { defineRoute } from '../../platform/http/route.js';
import { ref } from '../../platform/http/schema-ref.js';
import { CompanyView } from './companies.schema.js';
import type { CompaniesService } from './companies.service.js';

const companyExample = {
  company: {
    id: 'cmp_HX4G8DItIuGlff211f0n',
    rnc: '999999992',
    legalName: 'Empresa Demostración, S.R.L.',
    tradeName: 'Demo',
    address: 'Av. Winston Churchill 1099, Piantini',
    municipality: '010101',
    province: '010000',
    permissions: 'current',
    suspendedReason: null,
    certificationEnabled: false,
    certificate: {
      id: 'crt_ICjJBciTSJ9LJdhjhnoR',
      subject: 'CN=EMPRESA DEMOSTRACION\nserialNumber=999999992',
      issuer: 'CN=AVANSI CA\nO=AVANSI S.R.L.',
      serialNumber: '4AFDBC0E7BC3FC79FAF698F45E43097C',
      notBefore: '2026-01-01T00:00:00.000Z',
      notAfter: '2028-01-01T00:00:00.000Z',
      fingerprintSha256: 'e13b98a8d3123798632eb0b13d7f93c72bec0be9f56812c95941fd9507f79a3c',
    },
    branding: { logo: null, defaultFormat: 'a4', footerNote: null },
    delivery: { automatic: true, senderName: null, replyTo: 'facturacion@demo.example' },
    createdAt: '2026-11-02T13:00:00.000Z',
    updatedAt: '2026-11-20T15:45:00.000Z',
  },
  entitlement: { plan: 'pro', capabilities: ['issuing', 'receiving', 'webhooks'] },
  access: {
    issuing: { entitled: true, allowed: true, scopes: ['documents:create', 'documents:read', 'documents:send'] },
    receiving: { entitled: true, allowed: true, scopes: ['received:read'] },
    webhooks: { entitled: true, allowed: true, scopes: ['webhooks:manage'] },
  },
  environment: 'TEST',
  scopes: ['documents:create', 'documents:read', 'documents:send'],
  effectiveScopes: ['documents:create', 'documents:read', 'documents:send'],
};

export function companyRoutes(companies: CompaniesService) {
  return [
    defineRoute({
      method: 'GET',
      url: '/api/v1/empresa',
      alias: '/api/v1/company',
      auth: { kind: 'apiKey', scope: 'any' },
      docs: {
        operationId: 'getCompany',
        summary: 'The company, its entitlement, access by capability, and the key',
        tags: ['Company'],
        examples: { response: envelopeExample(companyExample) },
      },
      schema: { response: { 200: Envelope(ref(CompanyView)) } },
      handler: async (request) => {
        // The auth hook guarantees a principal on apiKey routes.
        const principal = request.principal;
        if (principal === undefined) throw new Error('apiKey route reached without a principal');
        return envelope(request, await companies.view(principal));
      },
    }),
  ];
}
