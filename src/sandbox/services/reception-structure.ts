// A received e-CF against our model of DGII's structure (fiscal/build's validateStructure), for when DGII's XSDs are
// not loaded and for the per-type obligations of the Formato e-CF that the XSDs do not express.
import { validateStructure, type EcfObject, type EcfValue } from '../../fiscal/build/index.js';
import { error, type Finding } from '../../fiscal/finding.js';
import { isEcfType } from '../../fiscal/model/index.js';

export function isGroup(value: EcfValue | undefined): value is EcfObject {
  return typeof value === 'object' && !Array.isArray(value);
}

/**
 * validateEcfDocument's checks for a document received signed. It checks a client's request, where eNCF,
 * FechaVencimientoSecuencia and FechaHoraFirma are the service's to set and so refused; a signed e-CF must carry
 * them. So: the structure without those three, then the fiscal rules and totals over the whole document (the rules
 * check the three: e-NCF against TipoeCF, the sequence expiry against FechaEmision, a signing time not in the future).
 */
export function structureFindings(tipoeCF: string, document: EcfObject): Finding[] {
  if (!isEcfType(tipoeCF))
    return [error('/Encabezado/IdDoc/TipoeCF', 'unknown_type', `TipoeCF ${tipoeCF} is not an e-CF type.`)];
  const encabezado = document['Encabezado'];
  const idDoc = isGroup(encabezado) ? encabezado['IdDoc'] : undefined;
  const withoutOwned: EcfObject = {
    ...Object.fromEntries(Object.entries(document).filter(([name]) => name !== 'FechaHoraFirma')),
    ...(isGroup(encabezado) && isGroup(idDoc)
      ? {
          Encabezado: {
            ...encabezado,
            IdDoc: Object.fromEntries(
              Object.entries(idDoc).filter(([name]) => name !== 'eNCF' && name !== 'FechaVencimientoSecuencia'),
            ),
          },
        }
      : {}),
  };
  return validateStructure(tipoeCF, withoutOwned);
}
