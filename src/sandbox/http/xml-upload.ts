// The one way DGII's receiving services take a document: multipart/form-data with a file part named `xml`
// (research/dgii-protocol.md §1.2). DGII wants a known Content-Length: a chunked body is refused with
// "Multipart cannot be empty" (§1.3), so the sandbox refuses it the same way.
import type { FastifyRequest } from 'fastify';

/** Documents larger than this are refused (DGII publishes no limit; 5 MB is far above a 1,000-line e-CF). */
export const maxXmlUploadBytes = 5 * 1024 * 1024;

export type XmlUpload =
  | { ok: true; xml: Buffer; filename: string }
  | { ok: false; status: number; mensaje: string };

export async function readXmlUpload(request: FastifyRequest): Promise<XmlUpload> {
  if (request.headers['content-length'] === undefined) return { ok: false, status: 400, mensaje: 'Multipart cannot be empty' };
  if (!request.isMultipart()) return { ok: false, status: 415, mensaje: 'Se espera multipart/form-data con el archivo en el campo xml.' };
  let xml: Buffer | undefined;
  let filename = '';
  try {
    for await (const part of request.parts({ limits: { fileSize: maxXmlUploadBytes, files: 1, fields: 5 } })) {
      if (part.type !== 'file') continue;
      if (part.fieldname !== 'xml') {
        part.file.resume();
        continue;
      }
      filename = part.filename;
      xml = await part.toBuffer();
    }
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') return { ok: false, status: 413, mensaje: `El archivo excede el tamaño máximo de ${String(maxXmlUploadBytes)} bytes.` };
    if (code === 'FST_FILES_LIMIT') return { ok: false, status: 400, mensaje: 'Se espera un solo archivo, en el campo xml.' };
    return { ok: false, status: 400, mensaje: 'Multipart cannot be empty' };
  }
  if (xml === undefined || xml.length === 0) return { ok: false, status: 400, mensaje: 'El campo xml es requerido.' };
  return { ok: true, xml, filename };
}
