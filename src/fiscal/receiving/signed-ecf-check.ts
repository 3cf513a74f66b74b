// The checks a signed e-CF handed in by its own issuer must pass before anything is recorded (POST
// /api/v1/documentos/xml-firmado): its signature verifies, it is an e-CF of a known type, it passes DGII's schema,
// and it reads; and the reading of one back from the archive (GET .../normalizado). Pure and synchronous, so a
// large document can be read on another thread (platform/xml-checks): the answer is plain data.
import type { EcfObject } from '../build/ecf-json.js';
import { parseEcf, type ParseResult } from '../parse/index.js';
import { verifyEnvelopedSignature, type VerificationResult } from '../xmldsig/index.js';
import { detectKind, type SchemaSet } from '../xsd/index.js';

export interface SignedEcfError {
  pointer: string;
  code: string;
  detail: string;
}

/** `securityCode`: the first six hex digits of the SignatureValue's hash, as the timbre carries it. */
export type SignedEcfCheck =
  { ok: true; document: EcfObject; securityCode: string } | { ok: false; detail: string; errors: SignedEcfError[] };

/** At most this many schema findings are reported: the first ones say what is wrong. */
const maxSchemaErrors = 20;

export function checkSignedEcf(xml: Uint8Array, schemas: SchemaSet | undefined): SignedEcfCheck {
  const bytes = Buffer.from(xml.buffer, xml.byteOffset, xml.byteLength);
  const verified = verifyEnvelopedSignature(bytes);
  if (!verified.ok) {
    return {
      ok: false,
      detail: 'The signature does not verify.',
      errors: verified.problems.map((problem) => ({
        pointer: '/ECF/Signature',
        code: problem.code,
        detail: problem.message,
      })),
    };
  }
  const kind = detectKind(bytes);
  if (kind === undefined || !kind.startsWith('e-CF-')) {
    return {
      ok: false,
      detail: 'The XML is not an e-CF of a known type.',
      errors: [
        {
          pointer: '/ECF',
          code: 'not_an_ecf',
          detail: 'The root must be ECF with a TipoeCF of 31, 32, 33, 34, 41, 43, 44, 45, 46 or 47.',
        },
      ],
    };
  }
  const schemaFindings = schemas?.validate(kind, bytes) ?? [];
  if (schemaFindings.length > 0) {
    return {
      ok: false,
      detail: `The XML does not pass DGII's ${kind} schema.`,
      errors: schemaFindings
        .slice(0, maxSchemaErrors)
        .map((finding) => ({ pointer: finding.path, code: finding.code, detail: finding.message })),
    };
  }
  const parsed = parseEcf(bytes.toString('utf8'));
  if (!parsed.ok)
    return {
      ok: false,
      detail: 'The e-CF cannot be read.',
      errors: parsed.findings.map((finding) => ({
        pointer: finding.pointer,
        code: finding.code,
        detail: finding.message,
      })),
    };
  return { ok: true, document: parsed.document, securityCode: verified.securityCode };
}

/** A signed e-CF read back from the archive: its signature verdict and its reading, each whatever it is. */
export interface SignedEcfReading {
  verdict: VerificationResult;
  parsed: ParseResult;
}

export function readSignedEcf(xml: Uint8Array): SignedEcfReading {
  const bytes = Buffer.from(xml.buffer, xml.byteOffset, xml.byteLength);
  return { verdict: verifyEnvelopedSignature(bytes), parsed: parseEcf(bytes.toString('utf8')) };
}
