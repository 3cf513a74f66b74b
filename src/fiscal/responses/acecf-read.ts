// A commercial approval (ACECF) as received, and whether it answers a given e-CF (Formato Aprobación Comercial v1.0
// §4; research/dgii-protocol.md §6.3). One reading for every party that receives one: the service for the e-CF it
// issued (modules/documents), and the sandbox as DGII and as the counterpart taxpayer.
import Big from 'big.js';
import { compareCalendarDates, parseDgiiDate } from '../dates.js';
import { groupsOf, textOf, type XmlTree } from '../parse/index.js';

export interface ReceivedAcecf {
  RNCEmisor: string;
  eNCF: string;
  FechaEmision: string;
  MontoTotal: string;
  RNCComprador: string;
  Estado: string;
  DetalleMotivoRechazo: string | undefined;
  FechaHoraAprobacionComercial: string | undefined;
}

/** The fields of an ACECF read with parseXmlTree (`tree` is the root's content); undefined when a required one is missing. */
export function readAcecf(tree: XmlTree): ReceivedAcecf | undefined {
  const detail = groupsOf(tree, 'DetalleAprobacionComercial')[0];
  if (detail === undefined) return undefined;
  const field = (name: string) => textOf(detail, name);
  const [RNCEmisor, eNCF, FechaEmision, MontoTotal, RNCComprador, Estado] = [
    'RNCEmisor',
    'eNCF',
    'FechaEmision',
    'MontoTotal',
    'RNCComprador',
    'Estado',
  ].map(field);
  if (
    RNCEmisor === undefined ||
    eNCF === undefined ||
    FechaEmision === undefined ||
    MontoTotal === undefined ||
    RNCComprador === undefined ||
    Estado === undefined
  )
    return undefined;
  return {
    RNCEmisor,
    eNCF,
    FechaEmision,
    MontoTotal,
    RNCComprador,
    Estado,
    DetalleMotivoRechazo: field('DetalleMotivoRechazo'),
    FechaHoraAprobacionComercial: field('FechaHoraAprobacionComercial'),
  };
}

/** DT simulator validations: 32, 41, 43, 46 and 47 are never sent to a buyer, so never approved (research §6.1). */
const typesWithoutApproval: ReadonlySet<string> = new Set(['32', '41', '43', '46', '47']);

/** Whether the e-CF an e-NCF names (E + type + sequence) takes a commercial approval. */
export function takesCommercialApproval(eNCF: string): boolean {
  return !typesWithoutApproval.has(eNCF.slice(1, 3));
}

export type AcecfDecision = { decision: 'approved'; reason: undefined } | { decision: 'rejected'; reason: string };

/**
 * What Estado says (1 e-CF Aceptado, 2 e-CF Rechazado), or why it cannot be read: DetalleMotivoRechazo is
 * "condicional a que el campo Estado sea código 2" (Formato Aprobación Comercial §4, field 8).
 */
export function acecfDecision(
  approval: Pick<ReceivedAcecf, 'Estado' | 'DetalleMotivoRechazo'>,
): AcecfDecision | { problem: 'estado_invalid' | 'reason_required' | 'reason_not_allowed' } {
  const reason = approval.DetalleMotivoRechazo;
  if (approval.Estado === '1')
    return reason === undefined ? { decision: 'approved', reason: undefined } : { problem: 'reason_not_allowed' };
  if (approval.Estado === '2')
    return reason === undefined || reason.trim() === ''
      ? { problem: 'reason_required' }
      : { decision: 'rejected', reason };
  return { problem: 'estado_invalid' };
}

/** Amounts compared as decimals: "35400" and "35400.00" are the same total. */
export function sameAmount(a: string | null, b: string): boolean {
  if (a === null) return false;
  try {
    return new Big(a).eq(new Big(b));
  } catch {
    return false;
  }
}

/** Dates compared as calendar dates: the XSD admits "1-2-2026" for "01-02-2026". */
export function sameDate(a: string | null, b: string): boolean {
  const left = a === null ? undefined : parseDgiiDate(a);
  const right = parseDgiiDate(b);
  return left !== undefined && right !== undefined && compareCalendarDates(left, right) === 0;
}

/** The e-CF an approval is checked against, as its issuer or DGII recorded it. */
export interface ApprovedEcf {
  RNCComprador: string | null;
  FechaEmision: string | null;
  MontoTotal: string | null;
}

export type AcecfMismatch = 'RNCComprador' | 'FechaEmision' | 'MontoTotal';

/**
 * The fields in which an approval disagrees with the e-CF it names (issuer and e-NCF found it), in the order of
 * the format: the buyer, the issue date and the total must be the e-CF's own (Formato §4, fields 4 to 6).
 */
export function acecfMismatches(
  approval: Pick<ReceivedAcecf, 'RNCComprador' | 'FechaEmision' | 'MontoTotal'>,
  ecf: ApprovedEcf,
): AcecfMismatch[] {
  const mismatches: AcecfMismatch[] = [];
  if (ecf.RNCComprador !== approval.RNCComprador) mismatches.push('RNCComprador');
  if (!sameDate(ecf.FechaEmision, approval.FechaEmision)) mismatches.push('FechaEmision');
  if (!sameAmount(ecf.MontoTotal, approval.MontoTotal)) mismatches.push('MontoTotal');
  return mismatches;
}
