// The one way a DGII-style service takes a document (research/dgii-protocol.md §1.2, §6.1): multipart/form-data
// with a file part named `xml`, or, where a route allows it, the raw bytes of an application/xml body. Used by the
// sandbox's DGII services and by the service's own receiver routes. Refusals carry DGII's kind of message, in
// Spanish, with the status to answer.
import type { FastifyRequest } from 'fastify';

/** Documents larger than this are refused (SPEC §8: receiver requests are capped at 5 MB). */
export const maxXmlUploadBytes = 5 * 1024 * 1024;

export type XmlUpload = { ok: true; xml: Buffer; filename: string } | { ok: false; status: number; mensaje: string };

export interface XmlUploadOptions {
  /**
   * Refuse a body without a Content-Length, as DGII does ("Multipart cannot be empty", §1.3). The sandbox acts
   * that out; the service's receiver takes a chunked upload.
   */
  requireContentLength?: boolean;
  /** Also take the raw bytes of an application/xml or text/xml body (the route must be declared `xmlBody`). */
  allowXmlBody?: boolean;
}

export async function readXmlUpload(
  request: FastifyRequest,
  options: XmlUploadOptions = { requireContentLength: true },
): Promise<XmlUpload> {
  if (options.requireContentLength === true && request.headers['content-length'] === undefined)
    return { ok: false, status: 400, mensaje: 'Multipart cannot be empty' };
  if (options.allowXmlBody === true && Buffer.isBuffer(request.body)) {
    return request.body.length === 0
      ? { ok: false, status: 400, mensaje: 'El cuerpo XML está vacío.' }
      : { ok: true, xml: request.body, filename: '' };
  }
  if (!request.isMultipart()) {
    return {
      ok: false,
      status: 415,
      mensaje:
        options.allowXmlBody === true
          ? 'Se espera multipart/form-data con el archivo en el campo xml, o application/xml.'
          : 'Se espera multipart/form-data con el archivo en el campo xml.',
    };
  }
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
    if (code === 'FST_REQ_FILE_TOO_LARGE')
      return {
        ok: false,
        status: 413,
        mensaje: `El archivo excede el tamaño máximo de ${String(maxXmlUploadBytes)} bytes.`,
      };
    if (code === 'FST_FILES_LIMIT')
      return { ok: false, status: 400, mensaje: 'Se espera un solo archivo, en el campo xml.' };
    return { ok: false, status: 400, mensaje: 'Multipart cannot be empty' };
  }
  if (xml === undefined || xml.length === 0) return { ok: false, status: 400, mensaje: 'El campo xml es requerido.' };
  return { ok: true, xml, filename };
}
