// CodigoSeguridad: "los primeros seis (6) dígitos del hash generado en el SignatureValue" (Informe Técnico,
// Descripción Técnica). They are characters of the base64 text, case-sensitive, and may be `+` or `/`
// (research/dgii-protocol.md §5; the public samples' codes IK4pIs, gG/XYZ, c0qwgy).

const SIGNATURE_VALUE = /<(?:[A-Za-z_][\w.-]*:)?SignatureValue(?:\s[^>]*)?>([^<]*)<\//;

export function securityCode(signatureValue: string): string {
  const compact = signatureValue.replace(/\s+/g, '');
  if (compact.length < 6) throw new RangeError('A SignatureValue has at least 6 characters.');
  return compact.slice(0, 6);
}

/**
 * The base64 text of the first SignatureValue in a signed document, whitespace removed; undefined when there is
 * none. A text scan, not a parse: callers pass documents we signed or already verified.
 */
export function readSignatureValue(signedXml: string): string | undefined {
  const match = SIGNATURE_VALUE.exec(signedXml);
  const value = match?.[1]?.replace(/\s+/g, '');
  return value === undefined || value === '' ? undefined : value;
}
