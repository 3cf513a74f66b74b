import { Envelope, envelope, envelopeExample } from '../../platform/http/envelope.js';
import { unwrap } from '../../platform/http/problems.js';
import { companyOf, defineRoute } from '../../platform/http/route.js';
import { ref } from '../../platform/http/schema-ref.js';
import { TaxpayerParams, TaxpayerView } from './taxpayers.schema.js';
import type { TaxpayersService } from './taxpayers.service.js';

const taxpayerExample = {
  rnc: '130123454',
  kind: 'rnc',
  legalName: 'DISTRIBUIDORA EJEMPLO SRL',
  tradeName: 'DISTRIBUIDORA EJEMPLO',
  economicActivity: 'VENTA AL POR MAYOR DE OTROS PRODUCTOS N.C.P.',
  startedOn: '2012-03-15',
  status: 'active',
  dgiiStatus: 'ACTIVO',
  paymentRegime: 'NORMAL',
  electronicIssuer: true,
  receiverUrls: null,
  registryUpdatedAt: '2026-11-27T07:00:00.000Z',
};

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
        examples: { response: envelopeExample(taxpayerExample) },
      },
      schema: { params: TaxpayerParams, response: { 200: Envelope(ref(TaxpayerView)) } },
      handler: async (request) =>
        envelope(request, unwrap(await taxpayers.lookup(request.params.rnc, companyOf(request.principal)))),
    }),
  ];
}
