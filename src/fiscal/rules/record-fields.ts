// The fields a row copied from an e-CF's XML when it was archived (the e-NCF, the type, the dates, the total), and
// which of them the XML no longer says. One comparison for the document view's integrity verdict and for the
// archive verifier, so both call the same difference a mismatch.
import type { EcfObject } from '../build/index.js';
import { textAt } from './document-view.js';

/** What the row recorded; a field left undefined was not recorded and is not compared. */
export interface RecordedFields {
  eNCF?: string | null;
  TipoeCF?: string | null;
  RNCEmisor?: string | null;
  FechaEmision?: string | null;
  MontoTotal?: string | null;
  FechaHoraFirma?: string | null;
  /** The security code recorded; compared with `securityCode`, the one of the signature that verified. */
  CodigoSeguridad?: string | null;
}

const paths: Record<Exclude<keyof RecordedFields, 'CodigoSeguridad'>, readonly string[]> = {
  eNCF: ['Encabezado', 'IdDoc', 'eNCF'],
  TipoeCF: ['Encabezado', 'IdDoc', 'TipoeCF'],
  RNCEmisor: ['Encabezado', 'Emisor', 'RNCEmisor'],
  FechaEmision: ['Encabezado', 'Emisor', 'FechaEmision'],
  MontoTotal: ['Encabezado', 'Totales', 'MontoTotal'],
  FechaHoraFirma: ['FechaHoraFirma'],
};

/**
 * The names of the recorded fields the document disagrees with; `['document']` when the bytes are no readable e-CF.
 * `securityCode` comes only from a signature that verified: without one, there is no trustworthy code to compare.
 */
export function recordedFieldMismatches(
  document: EcfObject | undefined,
  recorded: RecordedFields,
  securityCode: string | undefined,
): string[] {
  if (document === undefined) return ['document'];
  const mismatches: string[] = (Object.keys(paths) as (keyof typeof paths)[]).filter((name) => {
    const value = recorded[name];
    return value !== undefined && value !== (textAt(document, paths[name]) ?? null);
  });
  if (securityCode !== undefined && recorded.CodigoSeguridad !== undefined && securityCode !== recorded.CodigoSeguridad)
    mismatches.push('CodigoSeguridad');
  return mismatches;
}
