// The client of DGII's e-CF web services (research/dgii-protocol.md §1, §2): authentication, e-CF and RFCE
// reception, result by trackId, status and trackIds by e-NCF, ANECF, ACECF, directory and service status. Every
// method answers a typed outcome; DGII's and the network's trouble never throws (what may be sent again after a
// failure: failure-classes.ts). Only the credentials callback's own errors (e.g. the database) propagate.
import type { Logger } from 'pino';
import { environmentSegment, type FiscalEnvironment } from '../fiscal/environment.js';
import { signXml, type SigningKey } from '../fiscal/xmldsig/index.js';
import type { Cache } from '../platform/cache/index.js';
import type { Clock } from '../platform/clock.js';
import { createBreakerRegistry, type BreakerOptions } from './circuit-breaker.js';
import { parseUniversal } from './dgii-dates.js';
import { asQueryFailure, asTransient, classifyFailure, classifyStatus, type Mode } from './failure-classes.js';
import { parseDgiiMessages } from './messages.js';
import type {
  BreakerSnapshot,
  CallFailure,
  DirectoryOutcome,
  ProbeReport,
  ProbeStep,
  ResultOutcome,
  SendAcecfOutcome,
  SendAnecfOutcome,
  SendEcfOutcome,
  SendRfceOutcome,
  ServiceStatusOutcome,
  StatusByEncfOutcome,
  TrackIdsOutcome,
  Transient,
  Uncertain,
  Unauthorized,
} from './outcomes.js';
import {
  readAnnulment,
  readCommercialApproval,
  readDirectory,
  readEncfStatus,
  readReception,
  readResult,
  readRfceReception,
  readTrackIds,
  type Answer,
} from './responses.js';
import { readServiceStatus, statusAmbiente } from './service-status.js';
import { createTokenStore, type TokenSealing, type DgiiCredentials, type TokenResult } from './session-tokens.js';
import { createHttpTransport, xmlMultipart, type HttpRequest, type HttpTransport } from './transport.js';

export interface DgiiClientOptions {
  urls: { baseUrl: string; fcBaseUrl: string; statusBaseUrl: string };
  environment: FiscalEnvironment;
  clock: Clock;
  /** Shares tokens between processes (Redis); without it, tokens are kept in this process only. */
  cache?: Cache | undefined;
  log: Logger;
  /** Replaces HTTP (tests); by default node:http(s) with the timeouts below. */
  transport?: HttpTransport;
  timeouts: { connectMs: number; responseMs: number };
  /** Connections kept per DGII host by the default transport (its own default otherwise). */
  connectionsPerHost?: number;
  /** DGII_BREAKER_FAILURES and DGII_BREAKER_OPEN_MS. */
  breaker: BreakerOptions;
  /** Default 5 minutes. */
  tokenRefreshMarginMs?: number;
  /** Seals tokens kept in the shared cache; without it they are kept there in the clear (tests only). */
  tokenSealing?: TokenSealing | undefined;
  /** statusecf's `Authorization: Apikey` (DGII hands these out); without it serviceStatus answers no_credentials. */
  statusApiKey?: string | undefined;
  /** What the company authenticates with; undefined when it has no way to (`no_credentials`). */
  credentials(companyId: string): Promise<DgiiCredentials | undefined>;
}

export interface XmlFile {
  xml: Buffer;
  /** DGII's file name: RNCEmisor + eNCF + .xml for e-CF and RFCE, RNCComprador + eNCF + .xml for ACECF (§9.4). */
  fileName: string;
}

export interface DgiiClient {
  readonly environment: FiscalEnvironment;
  token(companyId: string): Promise<TokenResult | CallFailure>;
  /** A one-time DGII seed (SemillaModel XML, as DGII served it) for a company that signs outside the service. */
  seed(): Promise<{ kind: 'seed'; xml: string } | Transient>;
  /** Exchanges a seed signed outside the service for a session (validarsemilla); the caller stores it, encrypted. */
  exchangeSignedSeed(signed: Buffer): Promise<TokenResult>;
  sendEcf(companyId: string, file: XmlFile): Promise<SendEcfOutcome>;
  sendRfce(companyId: string, file: XmlFile): Promise<SendRfceOutcome>;
  result(companyId: string, trackId: string): Promise<ResultOutcome>;
  statusByEncf(
    companyId: string,
    query: { rncEmisor: string; eNCF: string; rncComprador?: string | undefined; securityCode?: string | undefined },
  ): Promise<StatusByEncfOutcome>;
  trackIds(companyId: string, query: { rncEmisor: string; eNCF: string }): Promise<TrackIdsOutcome>;
  sendAnecf(companyId: string, file: XmlFile): Promise<SendAnecfOutcome>;
  sendAcecf(companyId: string, file: XmlFile): Promise<SendAcecfOutcome>;
  /** Where sendAcecf posts: recorded as a commercial response's delivery target. */
  readonly acecfUrl: string;
  directory(companyId: string, rnc: string): Promise<DirectoryOutcome>;
  serviceStatus(): Promise<ServiceStatusOutcome>;
  breakers(): BreakerSnapshot[];
  probe(companyId: string): Promise<ProbeReport>;
  /** Closes kept-alive connections. */
  close(): void;
}

/** DGII's services by path segment: the unit of the circuit breakers. */
export type DgiiService =
  | 'autenticacion'
  | 'recepcion'
  | 'recepcionfc'
  | 'consultaresultado'
  | 'consultaestado'
  | 'consultatrackids'
  | 'anulacionrangos'
  | 'aprobacioncomercial'
  | 'consultadirectorio'
  | 'estatusservicios';

type Raw = { kind: 'answer'; answer: Answer } | Transient | Uncertain;

/** A trackId nobody has: consultaresultado answers it "No encontrado", which proves a token works and changes nothing. */
const probeTrackId = '00000000-0000-0000-0000-000000000000';

export function createDgiiClient(options: DgiiClientOptions): DgiiClient {
  const { clock, log } = options;
  const segment = environmentSegment[options.environment];
  const trim = (url: string) => url.replace(/\/+$/, '');
  const ecfBase = `${trim(options.urls.baseUrl)}/${segment}`;
  const acecfUrl = `${ecfBase}/aprobacioncomercial/api/aprobacioncomercial`;
  const fcBase = `${trim(options.urls.fcBaseUrl)}/${segment}`;
  const statusBase = trim(options.urls.statusBaseUrl);
  const ownTransport =
    options.transport === undefined
      ? createHttpTransport({ ...options.timeouts, maxSockets: options.connectionsPerHost })
      : undefined;
  const transport: HttpTransport = options.transport ?? (ownTransport as HttpTransport);
  const breakers = createBreakerRegistry(segment, clock, options.breaker);
  const dgiiLog = log.child({ component: 'dgii-client', environment: options.environment });

  /** One HTTP exchange through the service's breaker, classified. */
  async function perform(service: DgiiService, request: HttpRequest, mode: Mode): Promise<Raw> {
    const breaker = breakers.forService(service);
    const admission = breaker.admit();
    if (!admission.allowed) {
      return {
        kind: 'transient',
        reason: 'unavailable',
        detail: `circuit breaker open for ${service}`,
        retryAt: admission.retryAt,
      };
    }
    const started = performance.now();
    const result = await transport(request);
    const durationMs = Math.round(performance.now() - started);
    if (!result.ok) {
      breaker.failed();
      const failure = classifyFailure(result, mode);
      dgiiLog.warn(
        { service, durationMs, outcome: failure.kind, reason: failure.reason, detail: failure.detail },
        'DGII request failed',
      );
      return failure;
    }
    const contentType = typeof result.headers['content-type'] === 'string' ? result.headers['content-type'] : '';
    const answer: Answer = { status: result.status, body: result.body, contentType };
    const failure = classifyStatus(answer, mode);
    if (failure === undefined) breaker.succeeded();
    else breaker.failed();
    dgiiLog.debug({ service, durationMs, status: result.status }, 'DGII answered');
    return failure ?? { kind: 'answer', answer };
  }

  async function fetchSeed(): Promise<{ kind: 'seed'; xml: string } | Transient> {
    const seed = await perform(
      'autenticacion',
      {
        method: 'GET',
        url: `${ecfBase}/autenticacion/api/autenticacion/semilla`,
        headers: { accept: 'application/xml' },
      },
      'query',
    );
    if (seed.kind !== 'answer') return asTransient(seed);
    if (seed.answer.status !== 200)
      return {
        kind: 'transient',
        reason: 'unexpected_status',
        detail: `semilla answered HTTP ${String(seed.answer.status)}`,
        httpStatus: seed.answer.status,
      };
    return { kind: 'seed', xml: seed.answer.body.toString('utf8') };
  }

  async function validateSignedSeed(signed: Buffer): Promise<TokenResult> {
    const form = xmlMultipart(signed, 'semilla.xml');
    const validated = await perform(
      'autenticacion',
      {
        method: 'POST',
        url: `${ecfBase}/autenticacion/api/autenticacion/validarsemilla`,
        headers: { 'content-type': form.contentType, accept: 'application/json' },
        body: form.body,
      },
      'query',
    );
    if (validated.kind !== 'answer') return asTransient(validated);
    const { answer } = validated;
    if (answer.status === 400 || answer.status === 401 || answer.status === 403) {
      return {
        kind: 'unauthorized',
        reason: 'seed_refused',
        messages: parseDgiiMessages(answer.body, answer.contentType),
        httpStatus: answer.status,
      };
    }
    let body: { token?: unknown; expira?: unknown; expedido?: unknown } | undefined;
    try {
      body = JSON.parse(answer.body.toString('utf8')) as typeof body;
    } catch {
      body = undefined;
    }
    const expira = parseUniversal(body?.expira);
    if (answer.status !== 200 || typeof body?.token !== 'string' || body.token === '' || expira === null) {
      return {
        kind: 'transient',
        reason: 'bad_response',
        detail: `validarsemilla answered HTTP ${String(answer.status)} without a usable token`,
        httpStatus: answer.status,
      };
    }
    // Measured on our clock: DGII's lifetime (expira − expedido) from now, so a skewed clock on either side neither
    // keeps a dead token nor drops a live one.
    const expedido = parseUniversal(body.expedido);
    const lifetimeMs =
      expedido === null ? expira.getTime() - clock.now().getTime() : expira.getTime() - expedido.getTime();
    return { kind: 'token', token: body.token, expiresAt: new Date(clock.now().getTime() + Math.max(0, lifetimeMs)) };
  }

  async function exchangeSeed(identity: SigningKey): Promise<TokenResult> {
    const seed = await fetchSeed();
    if (seed.kind !== 'seed') return seed;
    let signed: string;
    try {
      signed = signXml(seed.xml, identity);
    } catch (error) {
      return {
        kind: 'unauthorized',
        reason: 'seed_unusable',
        messages: [{ codigo: null, valor: error instanceof Error ? error.message : 'the seed could not be signed' }],
      };
    }
    return validateSignedSeed(Buffer.from(signed, 'utf8'));
  }

  const tokens = createTokenStore({
    environment: segment,
    clock,
    cache: options.cache,
    log: dgiiLog,
    refreshMarginMs: options.tokenRefreshMarginMs ?? 5 * 60_000,
    exchange: exchangeSeed,
    sealing: options.tokenSealing,
  });

  /** An authenticated exchange: the company's token, one fresh token after a 401 (certificate only), then the answer. */
  async function authorized(
    companyId: string,
    service: DgiiService,
    mode: Mode,
    build: (token: string) => HttpRequest,
  ): Promise<{ kind: 'answer'; answer: Answer } | CallFailure | Uncertain> {
    // A token this process already holds needs no credentials: they are read (a database query) only to get one.
    let credentials: DgiiCredentials | undefined;
    for (let attempt = 0; ; attempt += 1) {
      const held = attempt === 0 ? tokens.held(companyId) : undefined;
      if (held === undefined) credentials ??= await options.credentials(companyId);
      if (held === undefined && credentials === undefined) return { kind: 'no_credentials' };
      const token =
        held !== undefined
          ? ({ kind: 'token', ...held } as const)
          : await tokens.get(companyId, credentials as DgiiCredentials);
      if (token.kind !== 'token') return token;
      const raw = await perform(service, build(token.token), mode);
      if (raw.kind !== 'answer') return raw;
      const { status } = raw.answer;
      if (status === 401) {
        // A 401 means DGII did not take the request, so repeating it with a fresh token cannot duplicate anything.
        await tokens.invalidate(companyId, token.token);
        credentials ??= await options.credentials(companyId);
        if (credentials?.kind === 'certificate' && attempt === 0) {
          dgiiLog.info({ companyId, service }, 'DGII refused the token (401); fetching a new one');
          continue;
        }
        const reason: Unauthorized['reason'] = credentials?.kind === 'session' ? 'session_expired' : 'token_refused';
        return {
          kind: 'unauthorized',
          reason,
          messages: parseDgiiMessages(raw.answer.body, raw.answer.contentType),
          httpStatus: status,
        };
      }
      if (status === 403)
        return {
          kind: 'unauthorized',
          reason: 'token_refused',
          messages: parseDgiiMessages(raw.answer.body, raw.answer.contentType),
          httpStatus: status,
        };
      return raw;
    }
  }

  const bearer = (token: string) => ({ authorization: `Bearer ${token}`, accept: 'application/json' });

  function upload(url: string, file: XmlFile) {
    const form = xmlMultipart(file.xml, file.fileName);
    return (token: string): HttpRequest => ({
      method: 'POST',
      url,
      headers: { ...bearer(token), 'content-type': form.contentType },
      body: form.body,
    });
  }

  function query(url: string, parameters: Record<string, string | undefined>) {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(parameters))
      if (value !== undefined && value !== '') search.set(name, value);
    return (token: string): HttpRequest => ({
      method: 'GET',
      url: `${url}?${search.toString()}`,
      headers: bearer(token),
    });
  }

  async function send<T>(
    companyId: string,
    service: DgiiService,
    url: string,
    file: XmlFile,
    read: (answer: Answer) => T,
  ): Promise<T | CallFailure | Uncertain> {
    const raw = await authorized(companyId, service, 'send', upload(url, file));
    return raw.kind === 'answer' ? read(raw.answer) : raw;
  }

  async function ask<T>(
    companyId: string,
    service: DgiiService,
    build: (token: string) => HttpRequest,
    read: (answer: Answer) => T,
  ): Promise<T | CallFailure> {
    const raw = await authorized(companyId, service, 'query', build);
    return raw.kind === 'answer' ? read(raw.answer) : asQueryFailure(raw);
  }

  async function timed(
    step: ProbeStep['step'],
    run: () => Promise<{ ok: boolean; outcome: string; detail: string }>,
  ): Promise<ProbeStep> {
    const started = performance.now();
    const result = await run();
    return { step, ...result, durationMs: Math.round(performance.now() - started) };
  }

  function describe(outcome: { kind: string; detail?: string; messages?: { valor: string }[] }): string {
    if (outcome.detail !== undefined) return outcome.detail;
    return outcome.messages?.map((message) => message.valor).join('; ') ?? '';
  }

  const result = (companyId: string, trackId: string): Promise<ResultOutcome> =>
    ask(
      companyId,
      'consultaresultado',
      query(`${ecfBase}/consultaresultado/api/consultas/estado`, { trackid: trackId }),
      (answer) => readResult(answer, trackId),
    );

  return {
    environment: options.environment,

    async token(companyId) {
      const credentials = await options.credentials(companyId);
      if (credentials === undefined) return { kind: 'no_credentials' };
      return tokens.get(companyId, credentials);
    },

    seed: fetchSeed,

    exchangeSignedSeed: validateSignedSeed,

    sendEcf: (companyId, file) =>
      send(companyId, 'recepcion', `${ecfBase}/recepcion/api/facturaselectronicas`, file, readReception),

    sendRfce: (companyId, file) =>
      send(companyId, 'recepcionfc', `${fcBase}/recepcionfc/api/recepcion/ecf`, file, readRfceReception),

    result,

    statusByEncf: (companyId, { rncEmisor, eNCF, rncComprador, securityCode }) =>
      ask(
        companyId,
        'consultaestado',
        query(`${ecfBase}/consultaestado/api/consultas/estado`, {
          rncemisor: rncEmisor,
          ncfelectronico: eNCF,
          rnccomprador: rncComprador,
          codigoseguridad: securityCode,
        }),
        readEncfStatus,
      ),

    trackIds: (companyId, { rncEmisor, eNCF }) =>
      ask(
        companyId,
        'consultatrackids',
        query(`${ecfBase}/consultatrackids/api/trackids/consulta`, { rncemisor: rncEmisor, encf: eNCF }),
        readTrackIds,
      ),

    sendAnecf: (companyId, file) =>
      send(companyId, 'anulacionrangos', `${ecfBase}/anulacionrangos/api/operaciones/anularrango`, file, readAnnulment),

    acecfUrl,
    sendAcecf: (companyId, file) => send(companyId, 'aprobacioncomercial', acecfUrl, file, readCommercialApproval),

    directory: (companyId, rnc) =>
      ask(
        companyId,
        'consultadirectorio',
        query(`${ecfBase}/consultadirectorio/api/consultas/obtenerdirectorioporrnc`, { RNC: rnc }),
        (answer) => readDirectory(answer, rnc),
      ),

    async serviceStatus() {
      if (options.statusApiKey === undefined || options.statusApiKey === '') return { kind: 'no_credentials' };
      const headers = { authorization: `Apikey ${options.statusApiKey}`, accept: 'application/json' };
      const ambiente = statusAmbiente[options.environment];
      const [verified, announced] = await Promise.all([
        perform(
          'estatusservicios',
          {
            method: 'GET',
            url: `${statusBase}/api/estatusservicios/verificarestado?ambiente=${ambiente.number}`,
            headers,
          },
          'query',
        ),
        perform(
          'estatusservicios',
          { method: 'GET', url: `${statusBase}/api/estatusservicios/obtenerventanasmantenimiento`, headers },
          'query',
        ),
      ]);
      for (const raw of [verified, announced]) {
        if (raw.kind !== 'answer') return asTransient(raw);
        if (raw.answer.status === 401 || raw.answer.status === 403)
          return {
            kind: 'unauthorized',
            reason: 'token_refused',
            messages: parseDgiiMessages(raw.answer.body, raw.answer.contentType),
            httpStatus: raw.answer.status,
          };
        if (raw.answer.status !== 200)
          return {
            kind: 'transient',
            reason: 'unexpected_status',
            detail: `statusecf answered HTTP ${String(raw.answer.status)}`,
            httpStatus: raw.answer.status,
          };
      }
      if (verified.kind !== 'answer' || announced.kind !== 'answer')
        return { kind: 'transient', reason: 'network', detail: 'statusecf did not answer' };
      return readServiceStatus(verified.answer, announced.answer, options.environment, clock.now());
    },

    breakers: () => breakers.snapshots(),

    async probe(companyId) {
      const steps: ProbeStep[] = [];
      let sessionExpiresAt: Date | null = null;
      const credentials = await options.credentials(companyId);
      steps.push({
        step: 'credentials',
        ok: credentials !== undefined,
        outcome: credentials === undefined ? 'no_credentials' : credentials.kind,
        detail: credentials === undefined ? 'no certificate and no DGII session' : '',
        durationMs: 0,
      });
      if (credentials === undefined) return { ok: false, steps, sessionExpiresAt };
      const authentication = await timed('authentication', async () => {
        const token =
          credentials.kind === 'certificate'
            ? await tokens.renew(companyId, credentials.identity)
            : await tokens.get(companyId, credentials);
        if (token.kind === 'token') sessionExpiresAt = token.expiresAt;
        return {
          ok: token.kind === 'token',
          outcome: token.kind,
          detail: token.kind === 'token' ? `session valid until ${token.expiresAt.toISOString()}` : describe(token),
        };
      });
      steps.push(authentication);
      if (!authentication.ok) return { ok: false, steps, sessionExpiresAt };
      const queried = await timed('query', async () => {
        const outcome = await result(companyId, probeTrackId);
        const ok =
          outcome.kind === 'not_found' ||
          outcome.kind === 'accepted' ||
          outcome.kind === 'conditional' ||
          outcome.kind === 'rejected' ||
          outcome.kind === 'in_process';
        return { ok, outcome: outcome.kind, detail: ok ? 'consultaresultado answered' : describe(outcome) };
      });
      steps.push(queried);
      return { ok: queried.ok, steps, sessionExpiresAt };
    },

    close() {
      ownTransport?.close();
    },
  };
}
