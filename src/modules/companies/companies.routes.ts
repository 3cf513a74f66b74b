import { envelope, Envelope } from '../../platform/http/envelope.js';
import { defineRoute } from '../../platform/http/route.js';
import { ref } from '../../platform/http/schema-ref.js';
import { CompanyView } from './companies.schema.js';
import type { CompaniesService } from './companies.service.js';

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
