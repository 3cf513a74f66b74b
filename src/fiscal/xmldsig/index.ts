// XMLDSig for DGII e-CF: sign (fast path for canonical documents we build, general signer for XML we are given),
// verify what we receive, and the security code.
export { XMLDSIG_NAMESPACE, C14N_1_0, RSA_SHA256, SHA256, ENVELOPED_SIGNATURE, XML_DECLARATION } from './profile.js';
export type { SigningKey } from './profile.js';
// The writer that produces this form is fiscal/xml's writeCanonicalElement; these check what the fast path relies on.
export { assertCanonicalRoot, checkCanonicalRoot, NonCanonicalDocumentError } from './canonical-form.js';
export { signCanonicalDocument, signCanonicalDocumentInBackground } from './sign-canonical.js';
export { toCanonicalDocument, XmlInputError } from './canonicalize.js';
export type { XmlInputErrorCode } from './canonicalize.js';
export { signXml } from './sign-xml.js';
export { verifyCompactEnvelopedSignature, verifyEnvelopedSignature } from './verify.js';
export type { VerifyOptions } from './verify.js';
export type {
  VerificationProblem,
  VerificationProblemCode,
  VerificationResult,
  VerifiedForm,
} from './verification-result.js';
export { readSignatureValue, securityCode } from './security-code.js';
