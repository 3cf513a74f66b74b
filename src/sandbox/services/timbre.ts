// The QR pages (consultatimbre for e-CF, consultatimbrefc for consumer invoices under DOP 250,000 sent as RFCE;
// DT "Consulta timbre (QR)"; research/dgii-protocol.md §5): a person scans the printed QR and sees whether DGII
// has the document. No token: they are public web pages. A document is found only when every value the QR gives
// matches the stored one; the page then shows "Aceptado" (conditional acceptance included) or "Rechazado", else
// "No fue encontrada la factura (e-CF)". A document still being processed is not found yet: DGII's pages know only
// those three states.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseDgiiTimestamp } from '../../fiscal/dates.js';
import { groupsOf, parseXmlTree, textOf } from '../../fiscal/parse/index.js';
import type { SandboxApp, SandboxContext } from '../http/context.js';
import { dgiiRoute } from '../http/sandbox-route.js';
import type { SandboxEnvironment } from '../state/schema.js';
import { sameAmount, sameDate } from '../../fiscal/responses/acecf-read.js';
import { queryParameter } from './directory.js';
import { renderTimbrePage, timbreStates, type TimbreRow } from './timbre-page.js';

type Channel = 'ecf' | 'rfce';

interface StoredDocument {
  rnc_emisor: string;
  encf: string;
  outcome: 1 | 2 | 4;
  monto_total: string | null;
  total_itbis: string | null;
  fecha_emision: string | null;
  fecha_firma: string | null;
  rnc_comprador: string | null;
  security_code: string | null;
  xml: string;
}

/** The QR's parameters, per page, as DGII names them (any letter case is accepted). */
const parametersOf: Readonly<Record<Channel, readonly string[]>> = {
  ecf: ['RncEmisor', 'RncComprador', 'ENCF', 'FechaEmision', 'MontoTotal', 'FechaFirma', 'CodigoSeguridad'],
  rfce: ['RncEmisor', 'ENCF', 'MontoTotal', 'CodigoSeguridad'],
};

function sameTimestamp(stored: string | null, given: string): boolean {
  const a = stored === null ? undefined : parseDgiiTimestamp(stored);
  const b = parseDgiiTimestamp(given);
  return a !== undefined && b !== undefined && a.getTime() === b.getTime();
}

/** Whether the given value matches the document's; a parameter the QR does not carry is not compared. */
function matches(document: StoredDocument, name: string, given: string): boolean {
  switch (name) {
    case 'RncEmisor':
      return document.rnc_emisor === given;
    case 'ENCF':
      // DT's own example writes the e-NCF in lower case (e310000000001).
      return document.encf === given.toUpperCase();
    case 'RncComprador':
      return document.rnc_comprador === given;
    case 'FechaEmision':
      return sameDate(document.fecha_emision, given);
    case 'MontoTotal':
      return sameAmount(document.monto_total, given);
    case 'FechaFirma':
      return sameTimestamp(document.fecha_firma, given);
    case 'CodigoSeguridad':
      // Six characters of base64: case matters.
      return document.security_code === given;
    default:
      return false;
  }
}

async function findDocument(
  context: SandboxContext,
  environment: SandboxEnvironment,
  channel: Channel,
  given: ReadonlyMap<string, string>,
): Promise<StoredDocument | undefined> {
  const rnc = given.get('RncEmisor');
  const encf = given.get('ENCF')?.toUpperCase();
  if (rnc === undefined || encf === undefined) return undefined;
  const documents = await context.db
    .selectFrom('sandbox_documents')
    .select([
      'rnc_emisor',
      'encf',
      'outcome',
      'monto_total',
      'total_itbis',
      'fecha_emision',
      'fecha_firma',
      'rnc_comprador',
      'security_code',
      'xml',
    ])
    .where('environment', '=', environment)
    .where('channel', '=', channel)
    .where('rnc_emisor', '=', rnc)
    .where('encf', '=', encf)
    .where('ready_at', '<=', context.clock.now())
    .orderBy('received_at', 'desc')
    .execute();
  const matching = documents.filter((document) => [...given].every(([name, value]) => matches(document, name, value)));
  // Sent twice, accepted once: the accepted one is the document the QR stands for.
  return matching.find((document) => document.outcome !== 2) ?? matching[0];
}

/** Razón social of a party, read from the stored document (it is shown the way the document states it). */
function partyName(xml: string, party: 'Emisor' | 'Comprador'): string | undefined {
  const parsed = parseXmlTree(xml);
  if (!parsed.ok) return undefined;
  const header = groupsOf(parsed.tree, 'Encabezado')[0];
  const group = header === undefined ? undefined : groupsOf(header, party)[0];
  return group === undefined ? undefined : textOf(group, `RazonSocial${party}`);
}

async function registeredName(context: SandboxContext, rnc: string): Promise<string | undefined> {
  const taxpayer = await context.db
    .selectFrom('sandbox_taxpayers')
    .select('name')
    .where('rnc', '=', rnc)
    .executeTakeFirst();
  return taxpayer?.name;
}

async function rowsFor(context: SandboxContext, channel: Channel, document: StoredDocument): Promise<TimbreRow[]> {
  const issuerName = (await registeredName(context, document.rnc_emisor)) ?? partyName(document.xml, 'Emisor') ?? '';
  const estado = document.outcome === 2 ? timbreStates.rejected : timbreStates.accepted;
  if (channel === 'rfce')
    return [
      ['RNC Emisor', document.rnc_emisor],
      ['Razón Social', issuerName],
      ['e-NCF', document.encf],
      ['Estado', estado],
    ];
  return [
    ['RNC Emisor', document.rnc_emisor],
    ['Razón social emisor', issuerName],
    ['RNC Comprador', document.rnc_comprador ?? ''],
    ['Razón social comprador', partyName(document.xml, 'Comprador') ?? ''],
    ['e-NCF', document.encf],
    ['Fecha de Emisión', document.fecha_emision ?? ''],
    ['Total de ITBIS', document.total_itbis ?? ''],
    ['Monto Total', document.monto_total ?? ''],
    ['Estado', estado],
  ];
}

async function page(
  context: SandboxContext,
  channel: Channel,
  request: FastifyRequest,
  reply: FastifyReply,
  environment: SandboxEnvironment,
): Promise<FastifyReply> {
  const given = new Map<string, string>();
  for (const name of parametersOf[channel]) {
    const value = queryParameter(request, name);
    if (value !== undefined && value !== '') given.set(name, value);
  }
  const document = await findDocument(context, environment, channel, given);
  const rows: TimbreRow[] =
    document === undefined ? [['Estado', timbreStates.notFound]] : await rowsFor(context, channel, document);
  return reply
    .type('text/html; charset=utf-8')
    .send(renderTimbrePage(channel === 'rfce' ? 'Consulta Timbre Factura de Consumo' : 'Consulta Timbre e-CF', rows));
}

export function timbreRoutes(app: SandboxApp, context: SandboxContext): void {
  dgiiRoute(app, {
    method: 'GET',
    service: 'consultatimbre',
    path: '/consultatimbre',
    handler: (request, reply, environment) => page(context, 'ecf', request, reply, environment),
  });
  dgiiRoute(app, {
    method: 'GET',
    service: 'consultatimbrefc',
    path: '/consultatimbrefc',
    handler: (request, reply, environment) => page(context, 'rfce', request, reply, environment),
  });
}
