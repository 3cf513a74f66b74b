// The e-NCF: E, the two-digit e-CF type, then a ten-digit sequence number (Formato e-CF; Informe Técnico §7).

export function encfOf(ecfType: string, sequence: number): string {
  return `E${ecfType}${String(sequence).padStart(10, '0')}`;
}

/** The type and sequence number of an e-NCF; undefined when the text is not one. */
export function parseEncf(encf: string): { ecfType: string; sequence: number } | undefined {
  const match = /^E(\d{2})(\d{10})$/.exec(encf);
  if (match === null) return undefined;
  return { ecfType: match[1] ?? '', sequence: Number(match[2]) };
}
