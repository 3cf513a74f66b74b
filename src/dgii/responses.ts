// DGII's answers, service by service, read into outcomes (research/dgii-protocol.md §2). Pure: the client hands in
// the status and body of an answer that reached us; transport trouble and 5xx are classified before this.
import { parseUsDateTime } from './dgii-dates.js';
import { parseDgiiMessages, storableText } from './messages.js';
import type {
  Accepted,
  DirectoryEntry,
  DirectoryOutcome,
  EncfStatusDetails,
  EstadoKind,
  Rejected,
  ResultOutcome,
  SendAcecfOutcome,
  SendAnecfOutcome,
  SendEcfOutcome,
  SendRfceOutcome,
  StatusByEncfOutcome,
  TrackIdEntry,
  TrackIdsOutcome,
  Transient,
  Uncertain,
  Verdict,
} from './outcomes.js';

export interface Answer {
  status: number;
  body: Buffer;
  contentType: string;
}

type Json = Record<string, unknown>;

function jsonOf(answer: Answer): unknown {
  const text = answer.body
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trim();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A field in any letter case (DGII's keys vary: `encf`/`eNCF`, `trackId`/`trackID`). */
function field(record: Json, name: string): unknown {
  const lower = name.toLowerCase();
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === lower);
  return key === undefined ? undefined : record[key];
}

function text(record: Json, name: string): string | null {
  const value = field(record, name);
  if (typeof value === 'string') {
    const kept = storableText(value);
    return kept === '' ? null : kept;
  }
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

function flag(record: Json, name: string): boolean | undefined {
  const value = field(record, name);
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'True') return true;
  if (value === 'false' || value === 'False') return false;
  return undefined;
}

/** A JSON number exactly as written in the body (amounts must not pass through a float). */
function rawNumber(body: string, name: string): string | null {
  const match = new RegExp(`"${name}"\\s*:\\s*(?:"(-?\\d+(?:\\.\\d+)?)"|(-?\\d+(?:\\.\\d+)?))`, 'i').exec(body);
  return match === null ? null : (match[1] ?? match[2] ?? null);
}

/** consulta resultado's codes (§2): 0 No encontrado, 1 Aceptado, 2 Rechazado, 3 En Proceso, 4 Aceptado Condicional. */
const byCode: Readonly<Record<string, EstadoKind>> = {
  '0': 'not_found',
  '1': 'accepted',
  '2': 'rejected',
  '3': 'in_process',
  '4': 'conditional',
};

/** The estado text alone, for answers without a code (consultatrackids) or with one we do not know. */
export function estadoKind(estado: string | null): EstadoKind {
  if (estado === null) return 'unknown';
  const normal = estado
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .trim();
  if (normal.startsWith('aceptado condicional') || normal.startsWith('aceptada condicional')) return 'conditional';
  if (normal.startsWith('aceptad')) return 'accepted';
  if (normal.startsWith('rechazad')) return 'rejected';
  if (normal.startsWith('en proceso')) return 'in_process';
  if (normal.startsWith('no encontrad')) return 'not_found';
  return 'unknown';
}

function kindOf(record: Json): EstadoKind {
  const codigo = text(record, 'codigo');
  const fromCode = codigo === null ? undefined : byCode[codigo.replace(/^0+(?=\d)/, '')];
  return fromCode ?? estadoKind(text(record, 'estado'));
}

function verdictOf(record: Json, answer: Answer): Verdict {
  return {
    estado: text(record, 'estado'),
    codigo: text(record, 'codigo'),
    messages: parseDgiiMessages(answer.body, answer.contentType),
    secuenciaUtilizada: flag(record, 'secuenciaUtilizada'),
  };
}

function unreadable(answer: Answer, detail: string): Uncertain {
  return { kind: 'uncertain', reason: 'unparseable_response', detail, httpStatus: answer.status };
}

function badQueryAnswer(answer: Answer, detail: string): Transient {
  return { kind: 'transient', reason: 'bad_response', detail, httpStatus: answer.status };
}

function refusal(answer: Answer, record: Json | undefined): Rejected {
  // A refusal at the door (no trackId): DGII did not take the document, so the e-NCF was not consumed.
  return {
    kind: 'rejected',
    estado: record === undefined ? null : text(record, 'estado'),
    codigo: record === undefined ? null : text(record, 'codigo'),
    messages: parseDgiiMessages(answer.body, answer.contentType),
    secuenciaUtilizada: record === undefined ? false : (flag(record, 'secuenciaUtilizada') ?? false),
    httpStatus: answer.status,
  };
}

function unexpected(answer: Answer): Transient {
  return {
    kind: 'transient',
    reason: 'unexpected_status',
    detail: `DGII answered HTTP ${String(answer.status)}`,
    httpStatus: answer.status,
    messages: parseDgiiMessages(answer.body, answer.contentType),
  };
}

/** Reception refusals DGII gives with a reason: a client that sends the same again gets the same answer. */
function isRefusal(status: number): boolean {
  return status === 400 || status === 409 || status === 413 || status === 415 || status === 422;
}

export function readReception(answer: Answer): SendEcfOutcome {
  const json = jsonOf(answer);
  if (answer.status >= 200 && answer.status < 300) {
    const trackId = isRecord(json) ? text(json, 'trackId') : null;
    return trackId === null
      ? unreadable(answer, 'reception answered without a trackId')
      : { kind: 'received', trackId };
  }
  if (isRefusal(answer.status)) return refusal(answer, isRecord(json) ? json : undefined);
  return unexpected(answer);
}

export function readRfceReception(answer: Answer): SendRfceOutcome {
  const json = jsonOf(answer);
  const record = isRecord(json) ? json : undefined;
  const kind = record === undefined ? 'unknown' : kindOf(record);
  const encf = record === undefined ? null : text(record, 'encf');
  if (record !== undefined && (kind === 'accepted' || kind === 'conditional' || kind === 'rejected')) {
    const verdict = verdictOf(record, answer);
    if (kind === 'rejected') return { kind, ...verdict, encf, httpStatus: answer.status };
    return { kind, ...verdict, encf };
  }
  if (answer.status >= 200 && answer.status < 300)
    return unreadable(answer, 'RFCE reception answered without a verdict');
  if (isRefusal(answer.status)) return { ...refusal(answer, record), encf };
  return unexpected(answer);
}

export function readResult(answer: Answer, trackId: string): ResultOutcome {
  const json = jsonOf(answer);
  if (answer.status !== 200 || !isRecord(json))
    return answer.status === 200
      ? badQueryAnswer(answer, 'consultaresultado answered something unreadable')
      : unexpected(answer);
  const kind = kindOf(json);
  const details = {
    trackId: text(json, 'trackId') ?? trackId,
    encf: text(json, 'encf'),
    rnc: text(json, 'rnc'),
    receivedAt: parseUsDateTime(text(json, 'fechaRecepcion')),
  };
  switch (kind) {
    case 'not_found':
      return { kind };
    case 'in_process':
      return { kind, trackId: details.trackId };
    case 'accepted':
    case 'conditional':
      return { kind, ...verdictOf(json, answer), ...details };
    case 'rejected':
      return { kind, ...verdictOf(json, answer), ...details, httpStatus: answer.status };
    case 'unknown':
      return badQueryAnswer(answer, 'consultaresultado answered an unknown codigo/estado');
  }
}

export function readEncfStatus(answer: Answer): StatusByEncfOutcome {
  const json = jsonOf(answer);
  if (answer.status !== 200 || !isRecord(json))
    return answer.status === 200
      ? badQueryAnswer(answer, 'consultaestado answered something unreadable')
      : unexpected(answer);
  const body = answer.body.toString('utf8');
  const details: EncfStatusDetails = {
    rncEmisor: text(json, 'rncEmisor'),
    eNCF: text(json, 'ncfElectronico'),
    montoTotal: rawNumber(body, 'montoTotal'),
    totalITBIS: rawNumber(body, 'totalITBIS'),
    fechaEmision: text(json, 'fechaEmision'),
    fechaFirma: text(json, 'fechaFirma'),
    rncComprador: text(json, 'rncComprador'),
    codigoSeguridad: text(json, 'codigoSeguridad'),
  };
  const kind = kindOf(json);
  switch (kind) {
    case 'not_found':
      return { kind };
    case 'accepted':
    case 'conditional':
      return { kind, ...verdictOf(json, answer), ...details };
    case 'rejected':
      return { kind, ...verdictOf(json, answer), ...details, httpStatus: answer.status };
    case 'in_process':
    case 'unknown':
      return badQueryAnswer(answer, 'consultaestado answered an unknown codigo/estado');
  }
}

export function readTrackIds(answer: Answer): TrackIdsOutcome {
  const json = jsonOf(answer);
  if (answer.status !== 200) return unexpected(answer);
  // A single entry may come as one object, like the directory's (research §2).
  const list = Array.isArray(json) ? json : isRecord(json) ? [json] : undefined;
  if (list === undefined) return badQueryAnswer(answer, 'consultatrackids answered something unreadable');
  const entries: TrackIdEntry[] = list.filter(isRecord).flatMap((entry) => {
    const trackId = text(entry, 'trackId');
    if (trackId === null) return [];
    const estado = text(entry, 'estado') ?? '';
    const fechaRecepcion = text(entry, 'fechaRecepcion');
    return [
      { trackId, estado, status: estadoKind(estado), fechaRecepcion, receivedAt: parseUsDateTime(fechaRecepcion) },
    ];
  });
  return entries.length === 0 ? { kind: 'not_found' } : { kind: 'found', entries };
}

/** XML answers (when DGII ignores Accept) carry the same fields as elements; only the few we need are read. */
function xmlField(body: string, name: string): string | null {
  const match = new RegExp(`<${name}>([^<]*)</${name}>`, 'i').exec(body);
  return match?.[1]?.trim() ?? null;
}

function recordOf(answer: Answer, names: readonly string[]): Json | undefined {
  const json = jsonOf(answer);
  if (isRecord(json)) return json;
  const body = answer.body.toString('utf8');
  if (!body.trimStart().startsWith('<')) return undefined;
  return Object.fromEntries(names.map((name) => [name, xmlField(body, name)]));
}

/**
 * anularrango answers `{rnc, codigo, nombre, mensajes}` and publishes no catalogue of `codigo` (research §2, §12):
 * HTTP 200 means DGII processed the request; when its messages say some sequences were voided "con excepción", only
 * part was voided and the outcome is `conditional`, with the exceptions in the messages. HTTP 400 voided nothing.
 */
export function readAnnulment(answer: Answer): SendAnecfOutcome {
  const record = recordOf(answer, ['rnc', 'codigo', 'nombre']);
  const details = {
    rnc: record === undefined ? null : text(record, 'rnc'),
    nombre: record === undefined ? null : text(record, 'nombre'),
  };
  const messages = parseDgiiMessages(answer.body, answer.contentType);
  const verdict = {
    estado: details.nombre,
    codigo: record === undefined ? null : text(record, 'codigo'),
    messages,
    secuenciaUtilizada: undefined,
  };
  if (answer.status >= 200 && answer.status < 300) {
    if (record === undefined) return unreadable(answer, 'anularrango answered something unreadable');
    const partial = messages.some((entry) => /con excepci[oó]n/i.test(entry.valor));
    return partial ? { kind: 'conditional', ...verdict, ...details } : { kind: 'accepted', ...verdict, ...details };
  }
  if (isRefusal(answer.status)) return { kind: 'rejected', ...verdict, ...details, httpStatus: answer.status };
  return unexpected(answer);
}

/** aprobacioncomercial: HTTP 200 "Aprobación Comercial Aprobada." (codigo 01), HTTP 400 "…Rechazada" (02). */
export function readCommercialApproval(answer: Answer): SendAcecfOutcome {
  const record = recordOf(answer, ['codigo', 'estado']);
  const verdict: Verdict = {
    estado: record === undefined ? null : text(record, 'estado'),
    codigo: record === undefined ? null : text(record, 'codigo'),
    messages: parseDgiiMessages(answer.body, answer.contentType),
    secuenciaUtilizada: undefined,
  };
  if (answer.status >= 200 && answer.status < 300) {
    const approved: Accepted = { kind: 'accepted', ...verdict };
    return record === undefined ? unreadable(answer, 'aprobacioncomercial answered something unreadable') : approved;
  }
  if (isRefusal(answer.status)) return { kind: 'rejected', ...verdict, httpStatus: answer.status };
  return unexpected(answer);
}

/** obtenerdirectorioporrnc: an array, or in production sometimes one object (research §2, V 1.8.1). */
export function readDirectory(answer: Answer, rnc: string): DirectoryOutcome {
  const json = jsonOf(answer);
  if (answer.status !== 200) return unexpected(answer);
  const list = Array.isArray(json) ? json : isRecord(json) ? [json] : undefined;
  if (list === undefined) return badQueryAnswer(answer, 'consultadirectorio answered something unreadable');
  const entries: DirectoryEntry[] = list.filter(isRecord).map((entry) => ({
    nombre: text(entry, 'nombre') ?? '',
    rnc: text(entry, 'rnc') ?? '',
    urlRecepcion: text(entry, 'urlRecepcion') ?? '',
    urlAceptacion: text(entry, 'urlAceptacion') ?? '',
    urlOpcional: text(entry, 'urlOpcional') ?? '',
  }));
  const entry = entries.find((candidate) => candidate.rnc === rnc);
  return entry === undefined ? { kind: 'not_found' } : { kind: 'found', entry };
}
