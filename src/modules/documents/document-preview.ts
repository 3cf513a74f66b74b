// What the preview of an e-CF answers (POST /documentos/vista-previa): creation's judgement of the body
// (check-document.ts), and the amounts the e-CF would carry, read the way creation writes them (fiscal/build), so a
// preview's MontoTotal is the created document's to the character. Nothing is numbered, signed or stored.
import { readEcfValues, type EcfValue } from '../../fiscal/build/index.js';
import type { DocumentCheck } from './check-document.js';
import type { DocumentPreview } from './documents.schema.js';

type Group = Readonly<Record<string, EcfValue>>;

function groupOf(value: EcfValue | undefined): Group | undefined {
  return typeof value === 'object' && !Array.isArray(value) ? (value as Group) : undefined;
}

/** The text leaves of a group: its amounts, without its nested tables (ImpuestosAdicionales). */
function amountsOf(group: Group | undefined): Record<string, string> | null {
  if (group === undefined) return null;
  const amounts = Object.entries(group).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  return amounts.length === 0 ? null : Object.fromEntries(amounts);
}

export function previewOf(checked: DocumentCheck): DocumentPreview {
  const findings = checked.findings.map((finding) => ({
    pointer: finding.pointer,
    code: finding.code,
    severity: finding.severity,
    detail: finding.message,
  }));
  const values = checked.composed ? readEcfValues(checked.document) : undefined;
  const header = groupOf(values?.['Encabezado']);
  const text = (group: string, name: string) => {
    const value = groupOf(header?.[group])?.[name];
    return typeof value === 'string' ? value : null;
  };
  const totales = amountsOf(groupOf(header?.['Totales']));
  return {
    valid: checked.composed && checked.acceptable,
    ecfType: text('IdDoc', 'TipoeCF'),
    fechaEmision: text('Emisor', 'FechaEmision'),
    montoTotal: totales?.['MontoTotal'] ?? null,
    totalITBIS: totales?.['TotalITBIS'] ?? null,
    totales,
    otraMoneda: amountsOf(groupOf(header?.['OtraMoneda'])),
    lineas: checked.composed
      ? checked.lineas.map((linea) => ({
          numeroLinea: linea.NumeroLinea,
          montoItem: linea.MontoItem,
          montoItemOtraMoneda: linea.MontoItemOtraMoneda ?? null,
        }))
      : [],
    findings,
  };
}
