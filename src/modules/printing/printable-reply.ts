// GET …/impresion answers one resource in two media types: the printed-representation data as JSON (the default)
// or its PDF (`Accept: application/pdf`), on the paper `?formato=` names. The PDF's bytes are deterministic, so its
// ETag is their SHA-256 and a client that has them gets a 304.
import { Type, type Static } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { notModified } from '../../platform/http/conditional-get.js';
import { componentExample, Envelope, envelope, envelopeExample } from '../../platform/http/envelope.js';
import { negotiatedType } from '../../platform/http/negotiate.js';
import { unwrap } from '../../platform/http/problems.js';
import { ref } from '../../platform/http/schema-ref.js';
import type { Result } from '../../platform/result.js';
import { paperFormats } from './paper.js';
import { PrintableDocument } from './printable.schema.js';
import type { PrintingService, PrintSettings } from './printing.service.js';

export const PrintQuery = Type.Object(
  {
    formato: Type.Optional(
      Type.Union(
        paperFormats.map((format) => Type.Literal(format)),
        {
          description:
            "The paper of the PDF: a4, carta (Letter), 80mm roll, or 58mm roll (best effort: DGII's 2 cm from the edge to the QR cannot hold on 58 mm paper). Default: the company's format.",
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type PrintQuery = Static<typeof PrintQuery>;

const Pdf = Type.Unsafe<Buffer>({ type: 'string', format: 'binary' });

/** The contract's example of a printable answer: the component's JSON, or the first bytes of the PDF. */
export const printableExample = {
  ...envelopeExample(componentExample(PrintableDocument)),
  'application/pdf': '%PDF-1.7\n%âãÏÓ\n1 0 obj …',
};

export const printableResponses = {
  200: {
    description:
      'JSON (the default): the data of the printed representation. `Accept: application/pdf`: its PDF, named `{RNCEmisor}{eNCF}-{formato}.pdf`, with a strong ETag (the SHA-256 of its bytes).',
    content: {
      'application/json': { schema: Envelope(ref(PrintableDocument)) },
      'application/pdf': { schema: Pdf },
    },
  },
  304: Type.Null({ description: 'Not modified: the If-None-Match ETag is the PDF the client has.' }),
};

/** Rendered bytes change only with the document, the branding or a new renderer: revalidated on every use. */
const pdfCacheControl = 'private, max-age=0, must-revalidate';

const bestEffort: Partial<Record<string, string>> = {
  '58mm':
    'Best effort: on 58 mm paper the QR cannot sit 2 cm from the edge as DGII asks (Informe Técnico §17.2.3); prefer 80mm.',
};

/** Answers the data or its PDF; the company's print settings are read only for a PDF. */
export async function replyPrintable(
  request: FastifyRequest<{ Querystring: PrintQuery }>,
  reply: FastifyReply,
  source: {
    printing: PrintingService;
    printable: () => Promise<Result<PrintableDocument>>;
    settings: () => Promise<PrintSettings>;
  },
) {
  const type = negotiatedType(request, reply, ['application/json', 'application/pdf']);
  const printable = unwrap(await source.printable());
  if (type === 'application/json') return envelope(request, printable);
  const pdf = unwrap(await source.printing.pdf(printable, await source.settings(), request.query.formato));
  const notice = bestEffort[pdf.format];
  if (notice !== undefined) void reply.header('x-print-notice', notice);
  if (notModified(request, reply, `"${pdf.sha256}"`, pdfCacheControl)) return reply;
  return reply
    .type('application/pdf')
    .header('content-disposition', `inline; filename="${pdf.filename}"`)
    .send(pdf.bytes);
}
