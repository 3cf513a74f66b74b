/**
 * The XML a route received: the raw bytes of an application/xml body (routes with `xmlBody`), or the `xml` string of
 * a JSON body `{"xml": "…"}` and nothing else. Undefined when the body is neither.
 */
export function xmlOfBody(body: unknown): Buffer | undefined {
  if (Buffer.isBuffer(body)) return body;
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const { xml, ...rest } = body as Record<string, unknown>;
    if (typeof xml === 'string' && xml !== '' && Object.keys(rest).length === 0) return Buffer.from(xml, 'utf8');
  }
  return undefined;
}
