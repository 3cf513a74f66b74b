// The counterpart as an issuer (DT simulator "Emisión: Comprobantes" and "Emisión: Consulta de Acuse";
// research/dgii-protocol.md §6.4): on request it issues an e-CF to a taxpayer, sends it to that taxpayer's receiver
// and judges the ARECF that comes back, the way a taxpayer's certification is tested against DGII's simulator.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { buildEcf } from '../../fiscal/build/index.js';
import { encfOf } from '../../fiscal/encf.js';
import { parseXmlTree, groupsOf } from '../../fiscal/parse/index.js';
import { notReceivedReasons, readArecf } from '../../fiscal/responses/arecf.js';
import {
  securityCode,
  signCanonicalDocument,
  verifyEnvelopedSignature,
  readSignatureValue,
} from '../../fiscal/xmldsig/index.js';
import type { CounterpartIdentity, SandboxContext } from '../http/context.js';
import type { SandboxEnvironment } from '../state/schema.js';
import { counterpartInvoice, type TypeSentToReceiver } from './counterpart-documents.js';
import { authenticateAt, endpointUrl, postXml, standardPaths } from './counterpart-outbound.js';

export interface EmissionRequest {
  rnc: string;
  type: TypeSentToReceiver;
  receptionBase: URL;
  authenticationBase: URL | undefined;
}

/** What became of an e-CF the counterpart sent, as kept in sandbox_exchanges.state. */
export type AcknowledgementState = 'arecf_valid' | 'arecf_invalid' | 'no_answer' | 'auth_failed';

export interface Emission {
  encf: string;
  xml: string;
  state: AcknowledgementState;
  messages: string[];
}

/** An issuer the sandbox plays: the counterpart, or DGII's test taxpayer in certification (certification/). */
export type SandboxIssuer = Pick<CounterpartIdentity, 'rnc' | 'name' | 'key'>;

/** The issuer's next sequence number for a type: a counter per issuer, environment and type, taken atomically. */
async function nextSequence(
  context: SandboxContext,
  environment: SandboxEnvironment,
  issuer: SandboxIssuer,
  type: string,
): Promise<number> {
  // The counterpart's counters keep their original key, so restarting on an older database goes on where it was.
  const key =
    issuer.rnc === context.counterpart.rnc
      ? `counterpart_sequence:${environment}:${type}`
      : `issuer_sequence:${issuer.rnc}:${environment}:${type}`;
  const row = await context.db
    .insertInto('sandbox_settings')
    .values({ key, value: '1' })
    .onConflict((conflict) =>
      conflict
        .column('key')
        .doUpdateSet({ value: sql<string>`to_jsonb((sandbox_settings.value #>> '{}')::bigint + 1)` }),
    )
    .returning('value')
    .executeTakeFirstOrThrow();
  return Number(row.value);
}

async function buyerName(context: SandboxContext, rnc: string): Promise<string> {
  const taxpayer = await context.db
    .selectFrom('sandbox_taxpayers')
    .select('name')
    .where('rnc', '=', rnc)
    .executeTakeFirst();
  return taxpayer?.name ?? 'CONTRIBUYENTE RECEPTOR DE PRUEBA';
}

/**
 * The issuer's e-CF to a buyer, signed, and reported to DGII as accepted: a real issuer sends to DGII before the
 * receiver, so DGII's services (consulta estado, timbre, aprobación comercial) know the e-CF the receiver got.
 */
export async function issueEcf(
  context: SandboxContext,
  environment: SandboxEnvironment,
  request: { issuer: SandboxIssuer; buyerRnc: string; type: TypeSentToReceiver },
): Promise<{ encf: string; xml: string }> {
  const { issuer } = request;
  const now = context.clock.now();
  const encf = encfOf(request.type, await nextSequence(context, environment, issuer, request.type));
  const { document, owned, summary } = counterpartInvoice({
    type: request.type,
    eNCF: encf,
    issuer: { rnc: issuer.rnc, name: issuer.name },
    buyer: { rnc: request.buyerRnc, name: await buyerName(context, request.buyerRnc) },
    now,
  });
  const built = buildEcf(document, owned);
  if (!built.ok)
    throw new Error(
      `the sandbox built an invalid e-CF ${request.type}: ${built.findings.map((finding) => finding.message).join('; ')}`,
    );
  const xml = signCanonicalDocument(built.xml, issuer.key);
  const trackId = randomUUID();
  await context.db
    .insertInto('sandbox_documents')
    .values({
      track_id: trackId,
      environment,
      channel: 'ecf',
      rnc_emisor: issuer.rnc,
      encf,
      type: request.type,
      received_at: now,
      ready_at: now,
      outcome: 1,
      secuencia_utilizada: true,
      messages: JSON.stringify([]),
      monto_total: summary.montoTotal,
      total_itbis: summary.totalItbis,
      fecha_emision: summary.fechaEmision,
      fecha_firma: owned.fechaHoraFirma,
      rnc_comprador: request.buyerRnc,
      id_extranjero: null,
      security_code: securityCode(readSignatureValue(xml) ?? ''),
      xml,
    })
    .execute();
  await context.db
    .insertInto('sandbox_sequence_uses')
    .values({ environment, rnc: issuer.rnc, encf, used_by: 'ecf', track_id: trackId, used_at: now })
    .execute();
  return { encf, xml };
}

/** The ARECF a receiver answered, judged: well-formed, signed, valid per XSD, and about this e-CF and this buyer. */
export function judgeArecf(
  context: SandboxContext,
  body: string,
  expected: { encf: string; buyer: string; issuerRnc?: string },
): { valid: boolean; messages: string[]; estado?: string } {
  const issuerRnc = expected.issuerRnc ?? context.counterpart.rnc;
  const parsed = parseXmlTree(body);
  if (!parsed.ok || parsed.root !== 'ARECF')
    return { valid: false, messages: ['La respuesta no es un acuse de recibo (ARECF) en XML bien formado.'] };
  const messages: string[] = [];
  if (!verifyEnvelopedSignature(body).ok) messages.push('La firma digital del acuse de recibo no es válida.');
  if (context.schemas !== undefined && context.schemas.validate('ARECF', body).length > 0)
    messages.push('La estructura del acuse de recibo no es válida según el XSD ARECF.');
  const detail = groupsOf(parsed.tree, 'DetalleAcusedeRecibo')[0];
  const read = readArecf(
    Object.fromEntries(
      Object.entries(detail ?? {}).map(([name, values]) => [
        name,
        typeof values[0] === 'string' ? values[0] : undefined,
      ]),
    ),
  );
  if (!read.ok) return { valid: false, messages: [...messages, 'El acuse de recibo no tiene los campos requeridos.'] };
  const arecf = read.value;
  if (arecf.RNCEmisor !== issuerRnc)
    messages.push(`El RNCEmisor del acuse (${arecf.RNCEmisor}) no corresponde al emisor (${issuerRnc}).`);
  if (arecf.eNCF !== expected.encf)
    messages.push(`El eNCF del acuse (${arecf.eNCF}) no corresponde al enviado (${expected.encf}).`);
  if (arecf.RNCComprador !== expected.buyer)
    messages.push(`El RNCComprador del acuse (${arecf.RNCComprador}) no corresponde al comprador (${expected.buyer}).`);
  messages.push(
    arecf.Estado === '0'
      ? 'Estado 0: e-CF Recibido.'
      : `Estado 1: e-CF No Recibido (${arecf.CodigoMotivoNoRecibido} ${notReceivedReasons[arecf.CodigoMotivoNoRecibido]}).`,
  );
  return { valid: messages.length === 1, messages, estado: arecf.Estado };
}

/** What the sandbox sent to a receiver and what came back; `rnc` is the sender (the counterpart unless given). */
export async function recordExchange(
  context: SandboxContext,
  environment: SandboxEnvironment,
  exchange: {
    kind: 'ecf' | 'acecf';
    rnc?: string;
    encf: string;
    targetUrl: string;
    sentAt: Date;
    httpStatus: number | null;
    responseXml: string | null;
    state: string;
    messages: string[];
  },
): Promise<void> {
  await context.db
    .insertInto('sandbox_exchanges')
    .values({
      environment,
      kind: exchange.kind,
      rnc: exchange.rnc ?? context.counterpart.rnc,
      encf: exchange.encf,
      target_url: exchange.targetUrl,
      sent_at: exchange.sentAt,
      http_status: exchange.httpStatus,
      response_xml: exchange.responseXml,
      state: exchange.state,
      messages: JSON.stringify(exchange.messages),
    })
    .execute();
}

export async function emitEcf(
  context: SandboxContext,
  environment: SandboxEnvironment,
  request: EmissionRequest,
): Promise<Emission> {
  const { encf, xml } = await issueEcf(context, environment, {
    issuer: context.counterpart,
    buyerRnc: request.rnc,
    type: request.type,
  });
  const targetUrl = endpointUrl(request.receptionBase, standardPaths.recepcion);
  const sentAt = context.clock.now();
  const finish = async (
    state: AcknowledgementState,
    messages: string[],
    httpStatus: number | null = null,
    responseXml: string | null = null,
  ): Promise<Emission> => {
    await recordExchange(context, environment, {
      kind: 'ecf',
      encf,
      targetUrl,
      sentAt,
      httpStatus,
      responseXml,
      state,
      messages,
    });
    return { encf, xml, state, messages };
  };
  const session = await authenticateAt(context, request.authenticationBase);
  if (!session.ok) return finish('auth_failed', [session.message]);
  // DT: the file is named RNCEmisor + eNCF.
  const sent = await postXml(context, targetUrl, xml, `${context.counterpart.rnc}${encf}.xml`, session.token);
  if (!sent.ok) return finish('no_answer', [sent.message]);
  const judged = judgeArecf(context, sent.body, { encf, buyer: request.rnc });
  const messages =
    sent.status === 200 ? judged.messages : [`El receptor respondió HTTP ${String(sent.status)}.`, ...judged.messages];
  return finish(
    judged.valid && sent.status === 200 ? 'arecf_valid' : 'arecf_invalid',
    messages,
    sent.status,
    sent.body,
  );
}
