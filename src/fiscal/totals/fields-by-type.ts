// Which Totales elements each e-CF type may carry (Formato e-CF fields 92–119, obligation code 0 = must not
// appear; research/ecf-format.md §1.2). OtraMoneda mirrors these with the same gaps.

export type TotalsField =
  | 'MontoGravadoI1'
  | 'MontoGravadoI2'
  | 'MontoGravadoI3'
  | 'MontoExento'
  | 'ImpuestosAdicionales'
  | 'MontoNoFacturable'
  | 'TotalITBISRetenido'
  | 'TotalISRRetencion'
  | 'TotalITBISPercepcion'
  | 'TotalISRPercepcion';

const itbisGroups: TotalsField[] = ['MontoGravadoI1', 'MontoGravadoI2', 'MontoGravadoI3'];
const retentions: TotalsField[] = [
  'TotalITBISRetenido',
  'TotalISRRetencion',
  'TotalITBISPercepcion',
  'TotalISRPercepcion',
];

const forbidden: Readonly<Record<string, readonly TotalsField[]>> = {
  '32': retentions,
  '41': ['ImpuestosAdicionales', 'MontoNoFacturable'],
  '43': [...itbisGroups, 'ImpuestosAdicionales', 'MontoNoFacturable', ...retentions],
  '44': [...itbisGroups, ...retentions],
  '45': retentions,
  '46': ['MontoGravadoI1', 'MontoGravadoI2', 'MontoExento', 'ImpuestosAdicionales', ...retentions],
  '47': [
    ...itbisGroups,
    'ImpuestosAdicionales',
    'MontoNoFacturable',
    'TotalITBISRetenido',
    'TotalITBISPercepcion',
    'TotalISRPercepcion',
  ],
};

export function isAllowedForType(type: string, field: TotalsField): boolean {
  return !(forbidden[type] ?? []).includes(field);
}
