// The QR ("timbre") URLs printed on the representation of an e-CF (Descripción técnica §"Consulta timbre";
// Informe Técnico, representación impresa; research/dgii-protocol.md §5).
import { environmentSegment, type FiscalEnvironment } from './environment.js';

/** Type 32 under this amount is summarised to DGII as an RFCE and checked at the FC host. */
export const consumerSummaryThreshold = '250000.00';

export interface TimbreFields {
  TipoeCF: string;
  RNCEmisor: string;
  RNCComprador?: string | undefined;
  eNCF: string;
  FechaEmision: string;
  /** As written in the XML. */
  MontoTotal: string;
  FechaHoraFirma: string;
  CodigoSeguridad: string;
}

// Every value percent-encoded (the security code holds base64 characters such as + and /, and FechaFirma a
// space, which must be %20, never +); encodeURIComponent leaves !'()* alone, so those are encoded too. FechaFirma's
// colons stay literal, as DGII's examples print them (signatureDate below).
function encode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function query(pairs: [string, string | undefined][]): string {
  return pairs
    .filter((pair): pair is [string, string] => pair[1] !== undefined && pair[1] !== '')
    .map(([name, value]) => `${name}=${name === 'FechaFirma' ? signatureDate(value) : encode(value)}`)
    .join('&');
}

// FechaFirma as both of DGII's examples write it (Descripción técnica, "Consulta timbre": `fechafirma=10-10-2020%2009:00:00`;
// Informe Técnico §17: `FechaFirma=dd-MMyyyy%20HH:mm:ss`): the space as %20 and the colons literal, which a query may
// hold (RFC 3986 §3.4). The reserved-character table that lists `:` as %3A is for the security code.
function signatureDate(value: string): string {
  return encode(value).replace(/%3A/g, ':');
}

/**
 * Exact decimal comparison of two non-negative amounts written with digits and an optional fraction. Anything else
 * (a comma, an exponent, text) is not below: it is not an amount, and the model refuses it where it is read.
 */
function isBelow(amount: string, limit: string): boolean {
  if (!/^\d+(?:\.\d+)?$/.test(amount)) return false;
  const [whole = '0', fraction = ''] = amount.split('.');
  const [limitWhole = '0', limitFraction = ''] = limit.split('.');
  const width = Math.max(fraction.length, limitFraction.length);
  const a = BigInt(`${whole}${fraction.padEnd(width, '0')}`);
  const b = BigInt(`${limitWhole}${limitFraction.padEnd(width, '0')}`);
  return a < b;
}

export function isConsumerSummary(tipoeCF: string, montoTotal: string): boolean {
  return tipoeCF === '32' && isBelow(montoTotal, consumerSummaryThreshold);
}

/** ConsultaTimbre for e-CF; ConsultaTimbreFC (FC host, fewer fields) for type 32 under DOP 250,000. */
export function timbreUrl(environment: FiscalEnvironment, fields: TimbreFields): string {
  const segment = environmentSegment[environment];
  if (isConsumerSummary(fields.TipoeCF, fields.MontoTotal)) {
    return `https://fc.dgii.gov.do/${segment}/ConsultaTimbreFC?${query([
      ['RncEmisor', fields.RNCEmisor],
      ['ENCF', fields.eNCF],
      ['MontoTotal', fields.MontoTotal],
      ['CodigoSeguridad', fields.CodigoSeguridad],
    ])}`;
  }
  return `https://ecf.dgii.gov.do/${segment}/ConsultaTimbre?${query([
    ['RncEmisor', fields.RNCEmisor],
    ['RncComprador', fields.RNCComprador],
    ['ENCF', fields.eNCF],
    ['FechaEmision', fields.FechaEmision],
    ['MontoTotal', fields.MontoTotal],
    ['FechaFirma', fields.FechaHoraFirma],
    ['CodigoSeguridad', fields.CodigoSeguridad],
  ])}`;
}
