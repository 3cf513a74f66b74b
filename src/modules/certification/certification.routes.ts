// Certification (SPEC §4.8): a CERT key with certification:manage, on a CERT instance, for a company enabled for
// certification (SPEC §5 rule 4; the service says which condition fails).
import { Type } from 'typebox';
import { Envelope, envelope, envelopeExample } from '../../platform/http/envelope.js';
import { unwrap } from '../../platform/http/problems.js';
import { defineRoute } from '../../platform/http/route.js';
import { ref } from '../../platform/http/schema-ref.js';
import {
  CancelBody,
  CasesQuery,
  CaseView,
  ConfirmBody,
  ProcessParams,
  ProcessView,
  RunAnswer,
  RunQuery,
  SetFile,
  StepParams,
} from './certification.schema.js';
import type { Actor, CertificationService } from './certification.service.js';
import type { PrintedRepresentationsExport } from './printed-representations.js';
import { PrintQuery } from '../printing/index.js';

const auth = { kind: 'apiKey', scope: 'certification:manage' } as const;
const tags = ['Certification'];

function actorOf(request: { principal?: { companyId: string; keyId: string } | undefined; id: string }): Actor {
  if (request.principal === undefined) throw new Error('apiKey route reached without a principal');
  return { companyId: request.principal.companyId, keyId: request.principal.keyId, correlationId: request.id };
}

const Zip = Type.Unsafe<Buffer>({ type: 'string', format: 'binary' });

/** A set of one case, as `ecf certification convert` writes it (a real set has DGII's dozens): an e-CF 31 of the
 * fictitious company 131876544, whose set this is, with the set's e-NCF and sequence expiry. */
const certificationSetExample = {
  label: '131876544-set-de-pruebas.xlsx',
  cases: [
    {
      kind: 'ECF',
      caseKey: '131876544E310000000001',
      ecfType: '31',
      payload: {
        Encabezado: {
          Version: '1.0',
          IdDoc: {
            TipoeCF: '31',
            eNCF: 'E310000000001',
            FechaVencimientoSecuencia: '31-12-2028',
            IndicadorMontoGravado: '0',
            TipoIngresos: '01',
            TipoPago: '1',
          },
          Emisor: {
            RNCEmisor: '131876544',
            RazonSocialEmisor: 'Comercial Ejemplo del Caribe, S.R.L.',
            DireccionEmisor: 'Av. Winston Churchill 1099, Piantini',
            FechaEmision: '20-11-2026',
          },
          Comprador: { RNCComprador: '130123454', RazonSocialComprador: 'Distribuidora Ejemplo, S.R.L.' },
          Totales: {
            MontoGravadoTotal: '1000.00',
            MontoGravadoI1: '1000.00',
            ITBIS1: '18',
            TotalITBIS: '180.00',
            TotalITBIS1: '180.00',
            MontoTotal: '1180.00',
          },
        },
        DetallesItems: {
          Item: [
            {
              NumeroLinea: '1',
              IndicadorFacturacion: '1',
              NombreItem: 'Servicio de consultoría',
              IndicadorBienoServicio: '2',
              CantidadItem: '1.00',
              PrecioUnitarioItem: '1000.00',
              MontoItem: '1000.00',
            },
          ],
        },
      },
    },
  ],
};

/** A process just started from the example set (the steps after 3 left out). */
const processExample = {
  id: 'cpr_ky5frqPuKSjEllgVdaBi',
  status: 'active',
  label: '131876544-set-de-pruebas.xlsx',
  environment: 'CERT',
  failure: null,
  cancelReason: null,
  previousProcessId: null,
  setSha256: '47e6f2163a234bdf406080fb46213735b06b1526d2d5fe4702f0aeeaac06eb9e',
  steps: [
    {
      number: 1,
      name: 'Registrado',
      key: 'registrado',
      mode: 'manual',
      status: 'open',
      openedAt: '2026-11-27T14:30:00.000Z',
      doneAt: null,
      evidence: {},
    },
    {
      number: 2,
      name: 'Pruebas de Datos e-CF',
      key: null,
      mode: 'automatic',
      status: 'locked',
      openedAt: null,
      doneAt: null,
      evidence: {},
    },
  ],
  cases: { total: 1, pending: 1, sent: 0, accepted: 0, rejected: 0, error: 0 },
  confirmations: [],
  checklist: [
    {
      step: 1,
      id: 'registrado',
      title: 'Registrado',
      status: 'pending',
      required: true,
      detail: "Confirm once the company is registered in DGII's certification portal.",
      links: ['https://ecf.dgii.gov.do/certecf/portalcertificacion'],
    },
  ],
  timeline: [
    {
      at: '2026-11-27T14:30:00.000Z',
      subject: 'process',
      status: 'active',
      cause: 'started from 131876544-set-de-pruebas.xlsx (1 case)',
    },
  ],
  createdAt: '2026-11-27T14:30:00.000Z',
  updatedAt: '2026-11-27T14:30:00.000Z',
  endedAt: null,
};
const confirmedExample = {
  ...processExample,
  confirmations: [
    {
      step: 1,
      key: 'registrado',
      note: 'Registrado en el portal de DGII el 27-11-2026; solicitud 2026-118204.',
      apiKeyId: 'key_oamHqLQWRYUfsXCS',
      correlationId: '5b7c2f0e-3d1a-4c8e-9f6b-2a4d8e1c7b90',
      carriedFrom: null,
      confirmedAt: '2026-11-27T14:40:00.000Z',
    },
  ],
  updatedAt: '2026-11-27T14:40:00.000Z',
};

export function certificationRoutes(certification: CertificationService, printed: PrintedRepresentationsExport) {
  return [
    defineRoute({
      method: 'GET',
      url: '/api/v1/certificacion',
      alias: '/api/v1/certification',
      auth,
      docs: {
        operationId: 'getLatestCertification',
        summary: 'The latest certification process with its checklist (null when none was started)',
        tags,
        examples: { response: envelopeExample(processExample) },
      },
      schema: { response: { 200: Envelope(Type.Union([ref(ProcessView), Type.Null()])) } },
      handler: async (request) => envelope(request, unwrap(await certification.latest(actorOf(request).companyId))),
    }),
    defineRoute({
      method: 'POST',
      url: '/api/v1/certificacion/iniciar',
      alias: '/api/v1/certification/start',
      auth,
      docs: {
        operationId: 'startCertification',
        summary: 'Import a converted set and start a process (201)',
        description:
          "The whole set is checked first: its shape, unique keys, every RFCE case paired with its type-32 case under DOP 250,000, and every ECF case built verbatim (the set's e-NCF and values, nothing recomputed) through the model, the fiscal rules and the builder, each leaf written exactly as the set has it. Any defect answers 422 `certification_set_invalid` listing every defective case with its pointers, and nothing is created. Without ACECF cases, the approvals of step 3 are derived from the set. Cases DGII accepted in an earlier process carry over; an e-NCF DGII rejected answers 422 `encf_burned`. One active process per company (409).",
        tags,
        examples: { request: certificationSetExample, response: envelopeExample(processExample) },
      },
      schema: { body: ref(SetFile), response: { 201: Envelope(ref(ProcessView)) } },
      handler: async (request, reply) =>
        reply.code(201).send(envelope(request, unwrap(await certification.start(actorOf(request), request.body)))),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/certificacion/:id',
      alias: '/api/v1/certification/:id',
      auth,
      docs: {
        operationId: 'getCertification',
        summary: 'A process: its steps, checklist, confirmations and timeline',
        tags,
        examples: { response: envelopeExample(processExample) },
      },
      schema: { params: ProcessParams, response: { 200: Envelope(ref(ProcessView)) } },
      handler: async (request) =>
        envelope(request, unwrap(await certification.get(actorOf(request).companyId, request.params.id))),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/certificacion/:id/representaciones-impresas',
      alias: '/api/v1/certification/:id/printed-representations',
      auth,
      docs: {
        operationId: 'getCertificationPrintedRepresentations',
        summary: 'Step 5: the eleven printed representations (PDF) of the accepted simulation documents, in one zip',
        description:
          "One PDF per portal slot (31, 32, 32-menor-250k, 33, 34, 41, 43, 44, 45, 46, 47), named `{slot}_{RNCEmisor}{eNCF}-{formato}.pdf`, on the paper `formato` names (else the company's), with its branding. 409 `printed_representations_incomplete` names the slots without an accepted document; 422 `printed_representations_too_large` when the PDFs exceed the portal's 10 MB.",
        tags,
        examples: { response: { 'application/zip': 'PK\u0003\u0004…' } },
      },
      schema: {
        params: ProcessParams,
        querystring: PrintQuery,
        response: { 200: { description: 'The zip.', content: { 'application/zip': { schema: Zip } } } },
      },
      handler: async (request, reply) => {
        const zip = unwrap(await printed.zip(actorOf(request).companyId, request.params.id, request.query.formato));
        return reply
          .type('application/zip')
          .header('content-disposition', `attachment; filename="${zip.filename}"`)
          .send(zip.bytes);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/certificacion/:id/casos',
      alias: '/api/v1/certification/:id/cases',
      auth,
      docs: {
        operationId: 'listCertificationCases',
        summary: 'The cases of a process, in the order they are run; `status` filters',
        tags,
        examples: {
          response: envelopeExample([
            {
              caseKey: '131876544E310000000001',
              kind: 'ECF',
              ecfType: '31',
              step: 2,
              origin: 'set',
              route: 'reception',
              status: 'accepted',
              waitingFor: null,
              documentId: 'doc_ebhJdvnWMDXrZRIjCpH0',
              dependsOn: null,
              estado: 'Aceptado',
              codigo: '1',
              mensajes: [],
              carriedFromProcessId: null,
              sentAt: '2026-11-27T15:02:00.000Z',
              verdictAt: '2026-11-27T15:02:09.000Z',
            },
          ]),
        },
      },
      schema: {
        params: ProcessParams,
        querystring: CasesQuery,
        response: { 200: Envelope(Type.Array(ref(CaseView))) },
      },
      handler: async (request) =>
        envelope(
          request,
          unwrap(
            await certification.cases(
              actorOf(request).companyId,
              request.params.id,
              request.query.status as Parameters<CertificationService['cases']>[2],
            ),
          ),
        ),
    }),
    defineRoute({
      method: 'POST',
      url: '/api/v1/certificacion/:id/ejecutar',
      alias: '/api/v1/certification/:id/run',
      auth,
      docs: {
        operationId: 'runCertification',
        summary: "Hand up to `limit` pending cases to the process's serial lane (202)",
        description:
          'The lane sends one case at a time and the next only once DGII judged it: invoices first, a note only once the invoice it modifies is accepted, type 32 under DOP 250,000 as an RFCE written from the signed full e-CF, the approvals once step 2 is done. Documents go through the usual pipeline (archived, sent exactly once, followed to the verdict); nothing is re-signed on a retry. A DGII rejection fails the process. A case in `error` (DGII out of reach) is handed in again, with its same document. Follow the cases with GET .../casos.',
        tags,
        examples: {
          response: envelopeExample({
            processId: 'cpr_ky5frqPuKSjEllgVdaBi',
            queued: [{ caseKey: '131876544E310000000001', kind: 'ECF' }],
            lane: [{ caseKey: '131876544E310000000001', kind: 'ECF', status: 'pending', waitingFor: null }],
            remaining: 1,
          }),
        },
      },
      schema: { params: ProcessParams, querystring: RunQuery, response: { 202: Envelope(ref(RunAnswer)) } },
      handler: async (request, reply) =>
        reply
          .code(202)
          .send(
            envelope(
              request,
              unwrap(await certification.run(actorOf(request), request.params.id, request.query.limit ?? 10)),
            ),
          ),
    }),
    defineRoute({
      method: 'POST',
      url: '/api/v1/certificacion/:id/pasos/:key/confirmar',
      alias: '/api/v1/certification/:id/steps/:key/confirm',
      auth,
      docs: {
        operationId: 'confirmCertificationStep',
        summary: "Confirm a manual step done in DGII's portal (recorded for audit; uploads nothing)",
        description:
          'Keys and steps: registrado 1, representacion_impresa_envio 5, representacion_impresa_validacion 6, url_servicio_prueba 7, url_pruebas_comunicacion 8, inicio_prueba_aprobaciones 10, url_produccion 12, declaracion_jurada 13, verificacion_estatus 14. Only once every step before it is done (409 `certification_step_blocked` naming them); an unknown key is 404.',
        tags,
        examples: {
          request: { note: 'Registrado en el portal de DGII el 27-11-2026; solicitud 2026-118204.' },
          response: envelopeExample(confirmedExample),
        },
      },
      schema: { params: StepParams, body: ConfirmBody, response: { 200: Envelope(ref(ProcessView)) } },
      handler: async (request) =>
        envelope(
          request,
          unwrap(
            await certification.confirm(actorOf(request), request.params.id, request.params.key, request.body?.note),
          ),
        ),
    }),
    defineRoute({
      method: 'POST',
      url: '/api/v1/certificacion/:id/cancelar',
      alias: '/api/v1/certification/:id/cancel',
      auth,
      docs: {
        operationId: 'cancelCertification',
        summary: 'Cancel an active process, with the reason',
        tags,
        examples: {
          request: { reason: 'El set se descargó de nuevo: hay que empezar con el corregido.' },
          response: envelopeExample({
            ...confirmedExample,
            status: 'cancelled',
            cancelReason: 'El set se descargó de nuevo: hay que empezar con el corregido.',
            endedAt: '2026-11-27T15:10:00.000Z',
          }),
        },
      },
      schema: { params: ProcessParams, body: CancelBody, response: { 200: Envelope(ref(ProcessView)) } },
      handler: async (request) =>
        envelope(request, unwrap(await certification.cancel(actorOf(request), request.params.id, request.body.reason))),
    }),
    defineRoute({
      method: 'POST',
      url: '/api/v1/certificacion/:id/completar',
      alias: '/api/v1/certification/:id/complete',
      auth,
      docs: {
        operationId: 'completeCertification',
        summary:
          'Complete a process: every step done, every case accepted (409 with the open checklist items otherwise)',
        tags,
        examples: {
          response: envelopeExample({ ...confirmedExample, status: 'completed', endedAt: '2026-12-04T18:00:00.000Z' }),
        },
      },
      schema: { params: ProcessParams, response: { 200: Envelope(ref(ProcessView)) } },
      handler: async (request) =>
        envelope(request, unwrap(await certification.complete(actorOf(request), request.params.id))),
    }),
  ];
}
