// ACECF, the receiver's commercial approval or rejection of an e-CF (Formato Aprobación Comercial v1.0), sent
// to the issuer and to DGII.
import { error, type Finding } from '../finding.js';
import { leaf, writeXmlDocument } from '../xml/xml-writer.js';
import { dotNetNamespaces } from './xml-namespaces.js';

export type Acecf = {
  RNCEmisor: string;
  eNCF: string;
  FechaEmision: string;
  /** Two decimals: the XSD's pattern demands them (DGII's own simulator once sent "35400" and failed it). */
  MontoTotal: string;
  RNCComprador: string;
  /** dd-MM-yyyy HH:mm:ss, GMT-4. */
  FechaHoraAprobacionComercial: string;
} & ({ Estado: '1' } | { Estado: '2'; DetalleMotivoRechazo: string });

/** Writes MontoTotal with exactly two decimals, from any exact decimal text. */
export function twoDecimals(amount: string): string | undefined {
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(amount);
  if (match === null) return undefined;
  return `${match[1] ?? '0'}.${(match[2] ?? '').padEnd(2, '0')}`;
}

export function checkAcecf(approval: Acecf): Finding[] {
  const findings: Finding[] = [];
  if (twoDecimals(approval.MontoTotal) === undefined)
    findings.push(
      error('/MontoTotal', 'amount_format', 'MontoTotal is a non-negative amount with at most two decimals.'),
    );
  if (approval.Estado === '2' && approval.DetalleMotivoRechazo.trim() === '') {
    findings.push(
      error(
        '/DetalleMotivoRechazo',
        'rejection_reason_required',
        'A rejection (Estado 2) must say why: DetalleMotivoRechazo.',
      ),
    );
  }
  if (approval.Estado === '2' && approval.DetalleMotivoRechazo.length > 250) {
    findings.push(error('/DetalleMotivoRechazo', 'too_long', 'DetalleMotivoRechazo has at most 250 characters.'));
  }
  return findings;
}

export function buildAcecf(approval: Acecf): { ok: true; xml: string } | { ok: false; findings: Finding[] } {
  const findings = checkAcecf(approval);
  if (findings.length > 0) return { ok: false, findings };
  const xml = writeXmlDocument({
    name: 'ACECF',
    namespaces: dotNetNamespaces,
    content: [
      {
        name: 'DetalleAprobacionComercial',
        content: [
          leaf('Version', '1.0'),
          leaf('RNCEmisor', approval.RNCEmisor),
          leaf('eNCF', approval.eNCF),
          leaf('FechaEmision', approval.FechaEmision),
          leaf('MontoTotal', twoDecimals(approval.MontoTotal) ?? approval.MontoTotal),
          leaf('RNCComprador', approval.RNCComprador),
          leaf('Estado', approval.Estado),
          ...(approval.Estado === '2' ? [leaf('DetalleMotivoRechazo', approval.DetalleMotivoRechazo)] : []),
          leaf('FechaHoraAprobacionComercial', approval.FechaHoraAprobacionComercial),
        ],
      },
    ],
  });
  return { ok: true, xml };
}
