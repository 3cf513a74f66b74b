// Expected failures as values (STYLE.md principle 5): a service returns a Result, and a failure carries a stable code
// from this one list. What a code becomes over HTTP (its status and problem+json title) is platform/http/problems.ts.

export const problemCodes = [
  'validation_failed',
  'malformed_body',
  'malformed_request',
  'api_key_missing',
  'api_key_malformed',
  'api_key_unknown',
  'api_key_revoked',
  'api_key_expired',
  'api_key_wrong_environment',
  'ops_token_invalid',
  'signature_missing',
  'signature_invalid',
  'signature_stale',
  'scope_missing',
  'company_suspended',
  'route_not_found',
  'company_not_found',
  'api_key_not_found',
  'range_not_found',
  'document_not_found',
  'artefact_not_found',
  'allocation_not_found',
  'taxpayer_not_found',
  'webhook_endpoint_not_found',
  'webhook_delivery_not_found',
  'method_not_allowed',
  'event_replayed',
  'range_overlaps',
  'no_range',
  'range_exhausted',
  'allocation_exceeds_range',
  'document_not_sendable',
  'document_not_printable',
  'document_not_retryable',
  'document_not_deliverable',
  'dgii_session_refused',
  'annulment_invalid',
  'annulment_not_found',
  'annulment_not_retryable',
  'dgii_unavailable',
  'allocation_not_active',
  'certificate_missing',
  'idempotency_in_flight',
  'encf_already_used',
  'encf_not_next',
  'request_timeout',
  'payload_too_large',
  'uri_too_long',
  'unsupported_media_type',
  'not_acceptable',
  'expectation_failed',
  'certificate_unreadable',
  'certificate_unusable',
  'logo_unusable',
  'range_expired',
  'document_invalid',
  'idempotency_key_reused',
  'encf_not_authorised',
  'signed_xml_invalid',
  'acecf_malformed',
  'acecf_schema_invalid',
  'acecf_not_verified',
  'acecf_decision_invalid',
  'acecf_no_matching_document',
  'acecf_not_applicable',
  'acecf_buyer_mismatch',
  'acecf_date_mismatch',
  'acecf_amount_mismatch',
  'acecf_already_received',
  'received_not_accepted',
  'commercial_response_exists',
  'commercial_response_invalid',
  'certification_cert_only',
  'certification_not_enabled',
  'certification_certificate_missing',
  'certification_authentication_missing',
  'certification_not_found',
  'certification_step_not_found',
  'certification_active_exists',
  'certification_not_active',
  'certification_step_blocked',
  'printed_representations_incomplete',
  'printed_representations_too_large',
  'certification_incomplete',
  'certification_set_invalid',
  'pagination_overflow',
  'rate_limited',
  'headers_too_large',
  'internal_error',
  'document_integrity_failed',
  'service_unavailable',
  'database_unavailable',
  'database_full',
  'storage_unavailable',
  'storage_full',
] as const;

export type ProblemCode = (typeof problemCodes)[number];

/** Where a field error sits: a JSON pointer into that part of the request. */
export interface FieldError {
  pointer: string;
  in: 'body' | 'query' | 'params' | 'headers';
  code: string;
  detail: string;
}

/** An expected failure, as a value. */
export interface Failure {
  code: ProblemCode;
  detail: string;
  errors?: FieldError[];
  headers?: Record<string, string>;
}

export type Result<T> = { ok: true; value: T } | { ok: false; failure: Failure };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function fail(code: ProblemCode, detail: string, errors?: FieldError[]): { ok: false; failure: Failure } {
  return { ok: false, failure: errors === undefined ? { code, detail } : { code, detail, errors } };
}
