// DGII's certification portal (ecf.dgii.gov.do/certecf/portalcertificacion) played through the sandbox's admin
// routes, under /sandbox-admin/certification/:rnc (research/certification.md §1, §6.12). The portal is a web
// application, not a service: these routes stand for its forms and buttons and answer plain JSON, in English, like
// the other admin routes; what DGII says to the taxpayer goes to the postulación's inbox.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ensureTestRanges } from '../state/taxpayers.js';
import { createPostulacion, currentPostulacion, latestPostulacion, type Postulacion } from '../state/postulaciones.js';
import type { ReceiverUrls } from '../state/schema.js';
import type { SandboxContext } from '../http/context.js';
import { httpUrl } from '../counterpart/counterpart-outbound.js';
import { uploadConsumerInvoice } from './consumer-invoice-upload.js';
import {
  approvePrintedRepresentations,
  cancelPostulacion,
  confirmProductionUrls,
  confirmTestUrls,
  rejectPrintedRepresentations,
  sendTestApprovals,
  sendTestDocuments,
  submitSwornDeclaration,
  uploadPrintedRepresentations,
  validatePostulacion,
  verifyStatus,
} from './portal-actions.js';
import type { ActionResult } from './portal-results.js';
import { issueSet, registerSet, setDefects } from './portal-sets.js';
import { postulacionView } from './portal-view.js';
import type { PrintedFile } from './printed-representations.js';
import { casesOfSetFile, casesOfWorkbook } from './set-reading.js';
import type { SetDefect } from './set-generator.js';
import { setWorkbook } from './set-workbook.js';
import { swornDeclarationDownload } from './sworn-declaration.js';

const xlsxType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const rncPattern = /^(\d{9}|\d{11})$/;

const url = { type: 'string', minLength: 1, maxLength: 2000 } as const;
const urlsBody = {
  type: 'object',
  required: ['receptionUrl', 'approvalUrl', 'authenticationUrl'],
  additionalProperties: false,
  properties: { receptionUrl: url, approvalUrl: url, authenticationUrl: url },
} as const;
const optionalUrlsBody = { ...urlsBody, required: [] } as const;
const xmlBody = {
  type: 'object',
  required: ['xml'],
  additionalProperties: false,
  properties: { xml: { type: 'string', minLength: 1 } },
} as const;
const printedBody = {
  type: 'object',
  required: ['files'],
  additionalProperties: false,
  properties: {
    files: {
      type: 'array',
      maxItems: 20,
      items: {
        type: 'object',
        required: ['slot', 'pdfBase64'],
        additionalProperties: false,
        properties: { slot: { type: 'string' }, pdfBase64: { type: 'string', minLength: 1 } },
      },
    },
  },
} as const;
const textBody = (name: string) =>
  ({
    type: 'object',
    required: [name],
    additionalProperties: false,
    properties: { [name]: { type: 'string', minLength: 1, maxLength: 2000 } },
  }) as const;

/** 10 MB of PDFs, base64 (4/3) in JSON, with room to spare. */
const printedBodyLimit = 16 * 1024 * 1024;
const workbookBodyLimit = 32 * 1024 * 1024;

type Urls = Partial<ReceiverUrls>;

/** Every URL given must be http(s); undefined when they all are. */
function badUrl(urls: Urls): string | undefined {
  const wrong = Object.entries(urls).find(([, value]) => httpUrl(value) === undefined);
  return wrong === undefined ? undefined : `${wrong[0]} is not an http(s) URL: ${wrong[1]}.`;
}

export function portalRoutes(admin: FastifyInstance, context: SandboxContext): void {
  const { db } = context;
  const fail = (reply: FastifyReply, status: number, message: string, more: object = {}) =>
    reply.code(status).send({ message, ...more });

  admin.addContentTypeParser(xlsxType, { parseAs: 'buffer', bodyLimit: workbookBodyLimit }, (_request, body, done) => {
    done(null, body);
  });

  /** The postulación in progress (or finished) of the route's RNC, or the answer that says why there is none. */
  async function postulacionOf(
    rnc: string,
    reply: FastifyReply,
  ): Promise<{ ok: true; postulacion: Postulacion } | { ok: false; reply: FastifyReply }> {
    if (!rncPattern.test(rnc))
      return { ok: false, reply: fail(reply, 400, `${rnc} is not an RNC (9 digits) or a cédula (11 digits).`) };
    const found = await currentPostulacion(db, rnc);
    if (found === undefined)
      return {
        ok: false,
        reply: fail(
          reply,
          404,
          `RNC ${rnc} has no postulación (a cancelled one does not count): POST /sandbox-admin/certification/${rnc} first.`,
        ),
      };
    return { ok: true, postulacion: found };
  }

  async function answer(reply: FastifyReply, rnc: string, result: ActionResult): Promise<FastifyReply> {
    if (!result.ok) {
      const { ok: _, status, ...body } = result;
      return reply.code(status).send(body);
    }
    const postulacion = await latestPostulacion(db, rnc);
    return reply.send({
      outcome: result.outcome,
      message: result.message,
      postulacion: postulacion === undefined ? null : await postulacionView(context, postulacion),
    });
  }

  /** An action route: the postulación, then the action on it. */
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- Body names what the route's schema validated.
  function action<Body>(
    name: string,
    options: { body?: object; bodyLimit?: number },
    run: (postulacion: Postulacion, body: Body) => Promise<ActionResult>,
  ): void {
    admin.post(
      `/certification/:rnc/actions/${name}`,
      {
        ...(options.body === undefined ? {} : { schema: { body: options.body } }),
        ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }),
      },
      async (request, reply) => {
        const { rnc } = request.params as { rnc: string };
        const found = await postulacionOf(rnc, reply);
        if (!found.ok) return found.reply;
        return answer(reply, rnc, await run(found.postulacion, request.body as Body));
      },
    );
  }

  admin.post('/certification/:rnc', { schema: { body: urlsBody } }, async (request, reply) => {
    const { rnc } = request.params as { rnc: string };
    if (!rncPattern.test(rnc)) return fail(reply, 400, `${rnc} is not an RNC (9 digits) or a cédula (11 digits).`);
    const urls = request.body as ReceiverUrls;
    const wrong = badUrl(urls);
    if (wrong !== undefined) return fail(reply, 400, wrong);
    const taxpayer = await db
      .selectFrom('sandbox_taxpayers')
      .select(['electronic', 'active'])
      .where('rnc', '=', rnc)
      .executeTakeFirst();
    if (taxpayer === undefined)
      return fail(reply, 404, `No taxpayer ${rnc} is registered; register it first (POST /sandbox-admin/taxpayers).`);
    if (!taxpayer.electronic || !taxpayer.active)
      return fail(
        reply,
        409,
        `Taxpayer ${rnc} is not an active electronic taxpayer; only one may apply for certification.`,
      );
    const now = context.clock.now();
    const created = await createPostulacion(db, rnc, urls, now);
    if (created === undefined) {
      const existing = await currentPostulacion(db, rnc);
      return fail(
        reply,
        409,
        `RNC ${rnc} already has a postulación (step ${String(existing?.step ?? '?')}); cancel it first to apply again.`,
      );
    }
    // DGII authorises CerteCF sequences for the tests; the sandbox gives its pre-certification ranges where none are.
    await ensureTestRanges(db, rnc, 'certecf', now);
    return reply.code(201).send(await postulacionView(context, created));
  });

  admin.get('/certification/:rnc', async (request, reply) => {
    const { rnc } = request.params as { rnc: string };
    const postulacion = await latestPostulacion(db, rnc);
    if (postulacion === undefined) return fail(reply, 404, `RNC ${rnc} never applied for certification.`);
    return postulacionView(context, postulacion);
  });

  admin.get('/certification/:rnc/set.xlsx', async (request, reply) => {
    const { rnc } = request.params as { rnc: string };
    const query = request.query as { regenerate?: string; seed?: string; defects?: string };
    const defects = (query.defects ?? '').split(',').filter((defect) => defect !== '');
    const unknown = defects.find((defect) => !(setDefects as readonly string[]).includes(defect));
    if (unknown !== undefined)
      return fail(reply, 400, `defects: ${unknown} is not a known defect (${setDefects.join(', ')}).`);
    if (query.seed !== undefined && !/^\d{1,9}$/.test(query.seed)) return fail(reply, 400, 'seed is a whole number.');
    if (query.regenerate !== undefined && query.regenerate !== 'true' && query.regenerate !== 'false')
      return fail(reply, 400, 'regenerate is true or false.');
    const found = await postulacionOf(rnc, reply);
    if (!found.ok) return found.reply;
    const issued = await issueSet(context, found.postulacion.id, {
      regenerate: query.regenerate === 'true',
      seed: query.seed === undefined ? undefined : Number(query.seed),
      defects: defects as SetDefect[],
    });
    if (!issued.ok) return answer(reply, rnc, issued.refusal);
    return reply
      .type(xlsxType)
      .header('content-disposition', `attachment; filename="${issued.set.name}"`)
      .send(setWorkbook(issued.set.cases));
  });

  admin.post('/certification/:rnc/set', { bodyLimit: workbookBodyLimit }, async (request, reply) => {
    const { rnc } = request.params as { rnc: string };
    const found = await postulacionOf(rnc, reply);
    if (!found.ok) return found.reply;
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    let reading;
    if (type === xlsxType && Buffer.isBuffer(request.body)) reading = await casesOfWorkbook(request.body);
    else if (type === 'application/json') reading = casesOfSetFile(request.body);
    else
      return fail(
        reply,
        415,
        `Send the set file as application/json ({label, cases}) or DGII's workbook as ${xlsxType}.`,
      );
    if (!reading.ok) return fail(reply, 400, 'This is not a certification set.', { problems: reading.problems });
    return answer(reply, rnc, await registerSet(context, found.postulacion.id, reading.cases));
  });

  admin.get('/certification/:rnc/sworn-declaration.xml', async (request, reply) => {
    const { rnc } = request.params as { rnc: string };
    const found = await postulacionOf(rnc, reply);
    if (!found.ok) return found.reply;
    const download = await swornDeclarationDownload(context, found.postulacion.id);
    if (!download.ok) return answer(reply, rnc, download.refusal);
    return reply
      .type('application/xml; charset=utf-8')
      .header('content-disposition', `attachment; filename="declaracion-jurada-${rnc}.xml"`)
      .send(download.xml);
  });

  action('validate', {}, (postulacion) => validatePostulacion(context, postulacion.id));
  action<{ xml: string }>('upload-consumer-invoice', { body: xmlBody }, (postulacion, body) =>
    uploadConsumerInvoice(context, postulacion.id, body.xml),
  );
  action<{ files: PrintedFile[] }>(
    'upload-printed-representations',
    { body: printedBody, bodyLimit: printedBodyLimit },
    (postulacion, body) => uploadPrintedRepresentations(context, postulacion.id, body.files),
  );
  action('approve-printed-representations', {}, (postulacion) =>
    approvePrintedRepresentations(context, postulacion.id),
  );
  action<{ observations: string }>(
    'reject-printed-representations',
    { body: textBody('observations') },
    (postulacion, body) => rejectPrintedRepresentations(context, postulacion.id, body.observations),
  );
  action<Urls | undefined>('confirm-test-urls', { body: optionalUrlsBody }, async (postulacion, body) => {
    const wrong = badUrl(body ?? {});
    return wrong === undefined
      ? confirmTestUrls(context, postulacion.id, body ?? {})
      : { ok: false, status: 400, message: wrong };
  });
  action('send-test-documents', {}, (postulacion) => sendTestDocuments(context, postulacion.id));
  action('send-test-approvals', {}, (postulacion) => sendTestApprovals(context, postulacion.id));
  action<ReceiverUrls>('confirm-production-urls', { body: urlsBody }, async (postulacion, body) => {
    const wrong = badUrl(body);
    return wrong === undefined
      ? confirmProductionUrls(context, postulacion.id, body)
      : { ok: false, status: 400, message: wrong };
  });
  action<{ xml: string }>('sworn-declaration', { body: xmlBody }, (postulacion, body) =>
    submitSwornDeclaration(context, postulacion.id, body.xml, postulacion),
  );
  action('verify-status', {}, (postulacion) => verifyStatus(context, postulacion.id));
  action<{ reason: string }>('cancel', { body: textBody('reason') }, (postulacion, body) =>
    cancelPostulacion(context, postulacion.id, body.reason),
  );
}
