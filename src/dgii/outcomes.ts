// What the DGII client answers: one family of typed outcomes, never an exception for DGII's or the network's
// trouble. The kinds that matter most for exactly-once sending are `transient` (DGII certainly did not process the
// request, so it may be sent again) and `uncertain` (DGII may have it: ask about the e-NCF before any resend).

/** One of DGII's messages, whatever body shape it came in (research/dgii-protocol.md §2). `codigo` is text: DGII
 * writes it as a number in some services and as a string in others. */
export interface DgiiMessage {
  codigo: string | null;
  valor: string;
}

/** DGII's own words for a verdict, kept as it wrote them. */
export interface Verdict {
  /** DGII's `estado` text, e.g. "Aceptado Condicional"; null when the answer had none. */
  estado: string | null;
  /** DGII's `codigo`, as text ("1", "4", "02"); null when absent. */
  codigo: string | null;
  messages: DgiiMessage[];
  /** false: DGII did not consume the e-NCF (it may be resent after correction); undefined when DGII did not say. */
  secuenciaUtilizada: boolean | undefined;
}

export interface Accepted extends Verdict {
  kind: 'accepted';
}
export interface Conditional extends Verdict {
  kind: 'conditional';
}
export interface Rejected extends Verdict {
  kind: 'rejected';
  /** The HTTP status DGII answered with (200 for a verdict in a successful answer, 400 for a refusal). */
  httpStatus: number;
}
export interface InProcess {
  kind: 'in_process';
}
export interface NotFound {
  kind: 'not_found';
}
export interface Received {
  kind: 'received';
  trackId: string;
}

export type TransientReason =
  /** The circuit breaker is open: nothing was sent. */
  | 'unavailable'
  | 'dns'
  | 'connect_refused'
  | 'connect_timeout'
  /** TLS handshake or another failure before the request could be written. */
  | 'connect_failed'
  /** The connection broke before the request was completely written. */
  | 'reset_before_sent'
  /** An idempotent query whose answer did not come in time (nothing changes at DGII by asking). */
  | 'response_timeout'
  | 'network'
  /** HTTP 502, 503 (including DGII's maintenance answer), 429, 408, or any 5xx to a query. */
  | 'server_unavailable'
  /** A query answered something we cannot read. */
  | 'bad_response'
  /** An HTTP status the client has no meaning for (e.g. 404: a misconfigured base URL). */
  | 'unexpected_status';

/**
 * Whether a transient failure means DGII could not be reached (down, unreachable, or refusing for now) rather than
 * DGII answering something unusable: an e-CF not taken for the first reason is issued in contingency (the printed
 * representation's 72-hour legend). Exhaustive, so a new reason must say which it is.
 */
export const dgiiOutOfReach: Readonly<Record<TransientReason, boolean>> = {
  unavailable: true,
  dns: true,
  connect_refused: true,
  connect_timeout: true,
  connect_failed: true,
  reset_before_sent: true,
  response_timeout: true,
  network: true,
  server_unavailable: true,
  bad_response: false,
  unexpected_status: false,
};

export interface Transient {
  kind: 'transient';
  reason: TransientReason;
  /** Short and safe to log: never a token or a document. */
  detail: string;
  httpStatus?: number;
  messages?: DgiiMessage[];
  /** When the breaker is open: when it lets a probe through. */
  retryAt?: Date;
}

export type UncertainReason =
  /** The request was written and no answer came in time. */
  | 'response_timeout'
  /** The connection broke after the request was written. */
  | 'reset_after_sent'
  /** A 2xx whose body does not say what DGII did. */
  | 'unparseable_response'
  /** HTTP 500, 504 and other 5xx to a send: DGII may have stored the document before failing. */
  | 'server_error';

export interface Uncertain {
  kind: 'uncertain';
  reason: UncertainReason;
  detail: string;
  httpStatus?: number;
}

export type UnauthorizedReason =
  /** validarsemilla refused the signed seed (e.g. the certificate is not delegated). */
  | 'seed_refused'
  /** The seed could not be read or signed. */
  | 'seed_unusable'
  /** A session token given by the company expired. */
  | 'session_expired'
  /** DGII answered 401 even to a fresh token, or 403. */
  | 'token_refused';

export interface Unauthorized {
  kind: 'unauthorized';
  reason: UnauthorizedReason;
  messages: DgiiMessage[];
  httpStatus?: number;
}

export interface NoCredentials {
  kind: 'no_credentials';
}

/** What every authenticated call can end in besides its own answers. */
export type CallFailure = Transient | Unauthorized | NoCredentials;

export type SendEcfOutcome = Received | Rejected | Transient | Uncertain | Unauthorized | NoCredentials;

export interface RfceVerdictDetails {
  encf: string | null;
}
export type SendRfceOutcome =
  | (Accepted & RfceVerdictDetails)
  | (Conditional & RfceVerdictDetails)
  | (Rejected & RfceVerdictDetails)
  | Transient
  | Uncertain
  | Unauthorized
  | NoCredentials;

/** consultaresultado's facts about a trackId. */
export interface ResultDetails {
  trackId: string;
  encf: string | null;
  rnc: string | null;
  /** DGII's fechaRecepcion (US style, GMT-4) read as an instant; null when absent or unreadable. */
  receivedAt: Date | null;
}
export type ResultOutcome =
  | (Accepted & ResultDetails)
  | (Conditional & ResultDetails)
  | (Rejected & ResultDetails)
  | (InProcess & { trackId: string })
  | NotFound
  | CallFailure;

/** consultaestado's facts about an e-NCF; amounts are the decimal text DGII wrote, never floats. */
export interface EncfStatusDetails {
  rncEmisor: string | null;
  eNCF: string | null;
  montoTotal: string | null;
  totalITBIS: string | null;
  fechaEmision: string | null;
  fechaFirma: string | null;
  rncComprador: string | null;
  codigoSeguridad: string | null;
}
export type StatusByEncfOutcome =
  | (Accepted & EncfStatusDetails)
  | (Conditional & EncfStatusDetails)
  | (Rejected & EncfStatusDetails)
  | NotFound
  | CallFailure;

/** A verdict's name in our words, from DGII's estado text (consultatrackids gives only that). */
export type EstadoKind = 'accepted' | 'conditional' | 'rejected' | 'in_process' | 'not_found' | 'unknown';

export interface TrackIdEntry {
  trackId: string;
  estado: string;
  status: EstadoKind;
  fechaRecepcion: string | null;
  receivedAt: Date | null;
}
export type TrackIdsOutcome = { kind: 'found'; entries: TrackIdEntry[] } | NotFound | CallFailure;

/** anularrango: `codigo` and `nombre` as DGII wrote them; partly voided ("con excepción") is `conditional`. */
export interface AnnulmentDetails {
  rnc: string | null;
  nombre: string | null;
}
export type SendAnecfOutcome =
  | (Accepted & AnnulmentDetails)
  | (Conditional & AnnulmentDetails)
  | (Rejected & AnnulmentDetails)
  | Transient
  | Uncertain
  | Unauthorized
  | NoCredentials;

export type SendAcecfOutcome = Accepted | Rejected | Transient | Uncertain | Unauthorized | NoCredentials;

export interface DirectoryEntry {
  nombre: string;
  rnc: string;
  /** Bases: the standard `/fe/...` paths are appended to them (research/dgii-protocol.md §2). */
  urlRecepcion: string;
  urlAceptacion: string;
  /** The taxpayer's authentication base; empty when it offers none. */
  urlOpcional: string;
}
export type DirectoryOutcome = { kind: 'found'; entry: DirectoryEntry } | NotFound | CallFailure;

export interface MaintenanceWindow {
  start: Date;
  end: Date;
}
export interface ServiceStatus {
  kind: 'status';
  /** verificarestado: "Disponible" for this environment. */
  available: boolean;
  estado: string;
  /** This environment's announced windows, as instants (DGII gives days and 12-hour times in GMT-4). */
  windows: MaintenanceWindow[];
  /** The window running now, if any. */
  activeWindow: MaintenanceWindow | null;
}
export type ServiceStatusOutcome = ServiceStatus | Transient | Unauthorized | NoCredentials;

export interface BreakerSnapshot {
  environment: string;
  service: string;
  state: 'closed' | 'open' | 'half_open';
  consecutiveFailures: number;
  /** While open: when a probe may go through. */
  opensUntil: Date | null;
}

export type ProbeStepName = 'credentials' | 'authentication' | 'query';
export interface ProbeStep {
  step: ProbeStepName;
  ok: boolean;
  /** The outcome kind (e.g. `unauthorized`, `transient`, `not_found`). */
  outcome: string;
  detail: string;
  durationMs: number;
}
export interface ProbeReport {
  ok: boolean;
  steps: ProbeStep[];
  /** When the session obtained expires; never the token itself. */
  sessionExpiresAt: Date | null;
}
