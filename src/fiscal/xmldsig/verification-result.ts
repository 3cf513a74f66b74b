import type { ParseProblemCode } from './parse-untrusted-xml.js';

export type VerificationProblemCode =
  | ParseProblemCode
  | 'xml_unprocessable'
  | 'signature_missing'
  | 'signature_multiple'
  | 'signature_not_last_child'
  | 'signature_malformed'
  | 'canonicalization_not_allowed'
  | 'signature_algorithm_not_allowed'
  | 'reference_count'
  | 'reference_uri_not_empty'
  | 'transform_not_allowed'
  | 'digest_algorithm_not_allowed'
  | 'certificate_missing'
  | 'certificate_multiple'
  | 'certificate_unreadable'
  | 'certificate_not_rsa'
  | 'digest_mismatch'
  | 'signature_mismatch';

export interface VerificationProblem {
  code: VerificationProblemCode;
  message: string;
}

/**
 * `as-is`: the signature checks over the document as received. `whitespace-stripped`: only once whitespace-only text
 * nodes are removed, the way DGII reads documents (PreserveWhitespace = false; Firmado de e-CF); indented signed
 * documents from other signers are like this (dgii/README.md, samples).
 */
export type VerifiedForm = 'as-is' | 'whitespace-stripped';

export type VerificationResult =
  | {
      ok: true;
      /** The embedded signer certificate. Whether to trust it (issuer, validity, holder) is the caller's call. */
      certificatePem: string;
      signatureValue: string;
      securityCode: string;
      verifiedForm: VerifiedForm;
    }
  | { ok: false; problems: VerificationProblem[] };
