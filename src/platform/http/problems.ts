// The one error catalogue: what each stable code (platform/result.ts) is over HTTP. One place (the error handler)
// turns a failure into application/problem+json (RFC 9457).
import type { Failure, FieldError, ProblemCode, Result } from '../result.js';

export const problemCatalogue = {
  validation_failed: { status: 400, title: 'The request is not valid' },
  malformed_body: { status: 400, title: 'The request body could not be read' },
  malformed_request: { status: 400, title: 'The request could not be read' },
  api_key_missing: { status: 401, title: 'An API key is required' },
  api_key_malformed: { status: 401, title: 'The API key is malformed' },
  api_key_unknown: { status: 401, title: 'The API key is not recognised' },
  api_key_revoked: { status: 401, title: 'The API key has been revoked' },
  api_key_expired: { status: 401, title: 'The API key has expired' },
  api_key_wrong_environment: { status: 401, title: 'The API key belongs to another environment' },
  ops_token_invalid: { status: 401, title: 'The operations token is missing or wrong' },
  signature_missing: { status: 401, title: 'The request is not signed' },
  signature_invalid: { status: 401, title: 'The request signature does not match' },
  signature_stale: { status: 401, title: 'The request timestamp is outside the accepted window' },
  scope_missing: { status: 403, title: 'The API key lacks the scope this route requires' },
  company_suspended: { status: 403, title: 'The company has no current permissions' },
  route_not_found: { status: 404, title: 'No such route' },
  company_not_found: { status: 404, title: 'No such company' },
  api_key_not_found: { status: 404, title: 'No such API key' },
  range_not_found: { status: 404, title: 'No such sequence range' },
  document_not_found: { status: 404, title: 'No such document' },
  artefact_not_found: { status: 404, title: 'No such artefact of this document' },
  allocation_not_found: { status: 404, title: 'No such allocation block' },
  taxpayer_not_found: { status: 404, title: 'No such taxpayer in the registry' },
  webhook_endpoint_not_found: { status: 404, title: 'No such webhook endpoint' },
  webhook_delivery_not_found: { status: 404, title: 'No such webhook delivery' },
  method_not_allowed: { status: 405, title: 'Method not allowed on this route' },
  event_replayed: { status: 409, title: 'This event id has already been processed' },
  range_overlaps: { status: 409, title: 'The range overlaps a range already registered for this type' },
  no_range: { status: 409, title: 'No authorised range is registered for this e-CF type' },
  range_exhausted: { status: 409, title: 'Every number of the authorised ranges of this type has been used' },
  allocation_exceeds_range: { status: 409, title: 'The range in use has fewer numbers left than the block asks for' },
  document_not_sendable: { status: 409, title: 'The document cannot be sent from its current state' },
  document_not_printable: { status: 409, title: 'The document has no printed representation' },
  document_not_retryable: { status: 409, title: 'The document is not eligible for a retry' },
  document_not_deliverable: { status: 409, title: 'The document cannot be delivered to its buyer' },
  dgii_session_refused: { status: 422, title: 'DGII refused the signed seed' },
  annulment_invalid: { status: 422, title: 'Some numbers cannot be annulled' },
  annulment_not_found: { status: 404, title: 'No such annulment request' },
  annulment_not_retryable: { status: 409, title: 'The annulment request is not eligible for a retry' },
  dgii_unavailable: { status: 503, title: 'DGII did not answer' },
  allocation_not_active: { status: 409, title: 'The allocation block has already ended' },
  certificate_missing: { status: 409, title: 'The company has no certificate to sign with' },
  idempotency_in_flight: { status: 409, title: 'A request with this Idempotency-Key is still being processed' },
  encf_already_used: { status: 409, title: 'This e-NCF has already been used' },
  encf_not_next: { status: 409, title: 'This e-NCF is not the next one of its range, nor in a reserved block' },
  request_timeout: { status: 408, title: 'The request did not arrive in time' },
  payload_too_large: { status: 413, title: 'The request body is too large' },
  uri_too_long: { status: 414, title: 'A path segment is too long' },
  unsupported_media_type: { status: 415, title: 'Unsupported content type' },
  not_acceptable: { status: 406, title: 'None of the accepted media types can be answered' },
  expectation_failed: { status: 417, title: 'Only Expect: 100-continue is supported' },
  certificate_unreadable: { status: 422, title: 'The certificate file could not be opened' },
  certificate_unusable: { status: 422, title: 'The certificate cannot be used for signing' },
  logo_unusable: { status: 422, title: 'The logo is not a PNG or JPEG image of an accepted size' },
  range_expired: { status: 422, title: 'The sequence expiry date has passed' },
  document_invalid: { status: 422, title: 'The e-CF does not pass the fiscal rules or the official schema' },
  idempotency_key_reused: { status: 422, title: 'This Idempotency-Key was used with a different request body' },
  encf_not_authorised: { status: 422, title: 'This e-NCF is not in any range registered for the company' },
  signed_xml_invalid: { status: 422, title: 'The signed XML does not verify, or does not pass the official schema' },
  acecf_malformed: { status: 400, title: 'The commercial approval is not a readable ACECF' },
  acecf_schema_invalid: { status: 422, title: "The ACECF does not pass DGII's schema" },
  acecf_not_verified: { status: 422, title: 'The signature of the ACECF does not verify' },
  acecf_decision_invalid: { status: 422, title: 'The ACECF Estado and DetalleMotivoRechazo do not agree' },
  acecf_no_matching_document: { status: 422, title: 'No document issued by this company is the e-CF the ACECF names' },
  acecf_not_applicable: { status: 422, title: 'This type of e-CF takes no commercial approval' },
  acecf_buyer_mismatch: { status: 422, title: "The ACECF's RNCComprador is not the buyer of the e-CF" },
  acecf_date_mismatch: { status: 422, title: "The ACECF's FechaEmision is not the e-CF's" },
  acecf_amount_mismatch: { status: 422, title: "The ACECF's MontoTotal is not the e-CF's" },
  acecf_already_received: { status: 409, title: 'The buyer already sent a different commercial answer for this e-CF' },
  received_not_accepted: {
    status: 409,
    title: 'Only a received e-CF acknowledged with Estado 0 takes a commercial response',
  },
  commercial_response_exists: {
    status: 409,
    title: 'The received document already has a different commercial response',
  },
  commercial_response_invalid: { status: 422, title: 'The commercial response is not valid' },
  certification_cert_only: { status: 403, title: 'Certification runs in CERT only' },
  certification_not_enabled: { status: 403, title: 'The company is not enabled for certification' },
  certification_certificate_missing: { status: 403, title: 'The company has no certificate to run certification with' },
  certification_authentication_missing: {
    status: 403,
    title: 'The service cannot authenticate to DGII CERT for the company',
  },
  certification_not_found: { status: 404, title: 'No such certification process' },
  certification_step_not_found: { status: 404, title: 'No manual certification step has this key' },
  certification_active_exists: { status: 409, title: 'The company already has an active certification process' },
  certification_not_active: { status: 409, title: 'The certification process is no longer active' },
  certification_step_blocked: { status: 409, title: 'The steps before this one are not done' },
  printed_representations_incomplete: {
    status: 409,
    title: 'Not every printed-representation slot has an accepted document',
  },
  printed_representations_too_large: { status: 422, title: "The printed representations exceed the portal's 10 MB" },
  certification_incomplete: { status: 409, title: 'The certification process is not complete' },
  certification_set_invalid: { status: 422, title: 'The certification set has defects' },
  pagination_overflow: {
    status: 422,
    title: "A page of the e-CF's pagination holds more lines than its printed page can",
  },
  rate_limited: { status: 429, title: 'Too many requests' },
  headers_too_large: { status: 431, title: 'The request headers are too large' },
  internal_error: { status: 500, title: 'Internal error' },
  document_integrity_failed: { status: 500, title: 'The archived signed XML no longer matches what was recorded' },
  service_unavailable: { status: 503, title: 'A dependency is unavailable' },
  database_unavailable: { status: 503, title: 'The database is unavailable' },
  database_full: { status: 507, title: 'The database has no room left' },
  storage_unavailable: { status: 503, title: 'The archive storage is unavailable' },
  storage_full: { status: 507, title: 'The archive storage is full' },
} as const satisfies Record<ProblemCode, { status: number; title: string }>;

/** Thrown only to carry a Failure from a route to the error handler. */
export class ProblemError extends Error {
  readonly failure: Failure;
  constructor(failure: Failure) {
    super(failure.detail);
    this.name = 'ProblemError';
    this.failure = failure;
  }
}

export function problem(code: ProblemCode, detail: string, errors?: FieldError[]): ProblemError {
  return new ProblemError(errors === undefined ? { code, detail } : { code, detail, errors });
}

/** A route's way out of a Result: the value, or the failure thrown to the error handler. */
export function unwrap<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  throw new ProblemError(result.failure);
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: ProblemCode;
  correlationId: string;
  errors?: FieldError[];
}

export function problemBody(failure: Failure, instance: string, correlationId: string): ProblemBody {
  const entry = problemCatalogue[failure.code];
  return {
    type: `urn:ecf-service:problem:${failure.code}`,
    title: entry.title,
    status: entry.status,
    detail: failure.detail,
    instance,
    code: failure.code,
    correlationId,
    ...(failure.errors === undefined ? {} : { errors: failure.errors }),
  };
}
