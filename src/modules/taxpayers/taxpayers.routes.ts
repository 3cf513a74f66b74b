import { Envelope, envelope } from '../../platform/http/envelope.js';
import { unwrap } from '../../platform/http/problems.js';
import { companyOf, defineRoute } from '../../platform/http/route.js';
import { ref } from '../../platform/http/schema-ref.js';
import { TaxpayerParams, TaxpayerView } from './taxpayers.schema.js';
import type { TaxpayersService } from './taxpayers.service.js';

export function taxpayerRoutes(taxpayers: TaxpayersService) {
  return [
    defineRoute({
      method: 'GET',
      url: '/api/v1/contribuyentes/:rnc',
      alias: '/api/v1/taxpayers/:rnc',
      auth: { kind: 'apiKey', scope: 'taxpayers:read' },
      docs: {
        operationId: 'getTaxpayer',
        summary: "A taxpayer in DGII's registry, by RNC or cédula",
        description:
          "The check digit is verified first (400 naming the rule). Then the registry loaded from DGII's public listing (404 when absent), and DGII's directory of electronic issuers when the service can reach it.",
        tags: ['Taxpayers'],
      },
      schema: { params: TaxpayerParams, response: { 200: Envelope(ref(TaxpayerView)) } },
      handler: async (request) =>
        envelope(request, unwrap(await taxpayers.lookup(request.params.rnc, companyOf(request.principal)))),
    }),
  ];
}
