// Certification (SPEC §4.8): a CERT key with certification:manage, on a CERT instance, for a company enabled for
// certification (SPEC §5 rule 4; the service says which condition fails).
import { Type } from 'typebox';
import { Envelope, envelope } from '../../platform/http/envelope.js';
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
      docs: { operationId: 'cancelCertification', summary: 'Cancel an active process, with the reason', tags },
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
      },
      schema: { params: ProcessParams, response: { 200: Envelope(ref(ProcessView)) } },
      handler: async (request) =>
        envelope(request, unwrap(await certification.complete(actorOf(request), request.params.id))),
    }),
  ];
}
