// ARECF, the receipt a receiver answers for every e-CF it is sent (Formato Acuse de Recibo v1.0): it says only
// whether the e-CF was received, not whether it is accepted.
import { error, type Finding } from '../finding.js';
import { leaf, writeXmlDocument } from '../xml/xml-writer.js';
import { dotNetNamespaces } from './xml-namespaces.js';

/** Estado 1 (no recibido) names one of these reasons (CodigoMotivoNoRecibido). */
export const notReceivedReasons = {
  '1': 'Error de especificación',
  '2': 'Error de Firma Digital',
  '3': 'Envío duplicado',
  '4': 'RNC Comprador no corresponde',
} as const;

export type NotReceivedReason = keyof typeof notReceivedReasons;

export type Arecf = {
  RNCEmisor: string;
  RNCComprador: string;
  eNCF: string;
  /** dd-MM-yyyy HH:mm:ss, GMT-4. */
  FechaHoraAcuseRecibo: string;
} & ({ Estado: '0' } | { Estado: '1'; CodigoMotivoNoRecibido: NotReceivedReason });

export function buildArecf(receipt: Arecf): string {
  return writeXmlDocument({
    name: 'ARECF',
    namespaces: dotNetNamespaces,
    content: [
      {
        name: 'DetalleAcusedeRecibo',
        content: [
          leaf('Version', '1.0'),
          leaf('RNCEmisor', receipt.RNCEmisor),
          leaf('RNCComprador', receipt.RNCComprador),
          leaf('eNCF', receipt.eNCF),
          leaf('Estado', receipt.Estado),
          ...(receipt.Estado === '1' ? [leaf('CodigoMotivoNoRecibido', receipt.CodigoMotivoNoRecibido)] : []),
          leaf('FechaHoraAcuseRecibo', receipt.FechaHoraAcuseRecibo),
        ],
      },
    ],
  });
}

/** The fields of an ARECF read back (from a parsed document), checked for the combinations DGII allows. */
export function readArecf(
  detail: Record<string, string | undefined>,
): { ok: true; value: Arecf } | { ok: false; findings: Finding[] } {
  const findings: Finding[] = [];
  const required = (name: string): string => {
    const value = detail[name];
    if (value === undefined || value === '')
      findings.push(error(`/ARECF/DetalleAcusedeRecibo/${name}`, 'missing', `${name} is required.`));
    return value ?? '';
  };
  const base = {
    RNCEmisor: required('RNCEmisor'),
    RNCComprador: required('RNCComprador'),
    eNCF: required('eNCF'),
    FechaHoraAcuseRecibo: required('FechaHoraAcuseRecibo'),
  };
  const estado = required('Estado');
  const reason = detail.CodigoMotivoNoRecibido;
  if (estado === '1' && (reason === undefined || !(reason in notReceivedReasons))) {
    findings.push(
      error(
        '/ARECF/DetalleAcusedeRecibo/CodigoMotivoNoRecibido',
        'reason_required',
        'Estado 1 (no recibido) needs CodigoMotivoNoRecibido 1 to 4.',
      ),
    );
  }
  if (estado === '0' && reason !== undefined) {
    findings.push(
      error(
        '/ARECF/DetalleAcusedeRecibo/CodigoMotivoNoRecibido',
        'reason_not_allowed',
        'Estado 0 (recibido) carries no CodigoMotivoNoRecibido.',
      ),
    );
  }
  if (estado !== '0' && estado !== '1' && estado !== '')
    findings.push(
      error('/ARECF/DetalleAcusedeRecibo/Estado', 'unknown_state', 'Estado is 0 (recibido) or 1 (no recibido).'),
    );
  if (findings.length > 0) return { ok: false, findings };
  return {
    ok: true,
    value:
      estado === '1'
        ? { ...base, Estado: '1', CodigoMotivoNoRecibido: reason as NotReceivedReason }
        : { ...base, Estado: '0' },
  };
}
