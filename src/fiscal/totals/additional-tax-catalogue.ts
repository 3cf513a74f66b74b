// Formato e-CF Tabla I (Codificación Tipos de Impuestos Adicionales) as the totals need it.

export type AdditionalTaxKind =
  | 'other' // 001–005: propina, CDT, ISC seguros, ISC telecomunicaciones, primera placa → OtrosImpuestosAdicionales
  | 'alcohol-specific' // 006–018 → MontoImpuestoSelectivoConsumoEspecifico
  | 'cigarette-specific' // 019–022 → MontoImpuestoSelectivoConsumoEspecifico
  | 'alcohol-ad-valorem' // 023–035 → MontoImpuestoSelectivoConsumoAdvalorem
  | 'cigarette-ad-valorem'; // 036–039 → MontoImpuestoSelectivoConsumoAdvalorem

export function additionalTaxKind(code: string): AdditionalTaxKind | undefined {
  if (!/^\d{3}$/.test(code)) return undefined;
  const n = Number(code);
  if (n >= 1 && n <= 5) return 'other';
  if (n >= 6 && n <= 18) return 'alcohol-specific';
  if (n >= 19 && n <= 22) return 'cigarette-specific';
  if (n >= 23 && n <= 35) return 'alcohol-ad-valorem';
  if (n >= 36 && n <= 39) return 'cigarette-ad-valorem';
  return undefined;
}

export function isKnownAdditionalTax(code: string): boolean {
  return additionalTaxKind(code) !== undefined;
}

/**
 * Rates fixed by law (Tabla I), written as DGII writes TasaImpuestoAdicional: a percentage. The específico
 * amounts of 006–022 are indexed quarterly (Tabla I footnote 82; Formato e-CF field 106 b), so they are not
 * here: the client must send the rate in force on FechaEmision.
 */
const fixedPercentRates: Readonly<Record<string, string>> = {
  '001': '10', // propina legal
  '002': '2', // CDT, Ley 153-98 art. 45
  '003': '16', // ISC servicios de seguros
  '004': '10', // ISC servicios de telecomunicaciones
  '005': '17', // primera placa
  ...Object.fromEntries(Array.from({ length: 13 }, (_, i) => [String(23 + i).padStart(3, '0'), '10'])),
  ...Object.fromEntries(Array.from({ length: 4 }, (_, i) => [String(36 + i).padStart(3, '0'), '20'])),
};

export function fixedRate(code: string): string | undefined {
  return fixedPercentRates[code];
}

/** ISC amounts 006–039 are part of the ITBIS base; 001–005 are not (Formato e-CF field 101; Informe Técnico §15 n. 34). */
export function isPartOfItbisBase(code: string): boolean {
  const kind = additionalTaxKind(code);
  return kind !== undefined && kind !== 'other';
}
