// The HTML of the QR pages: a title and label/value rows. Every value is escaped: the page echoes what the
// document and the query hold, and either may come from anyone.
export type TimbreRow = readonly [label: string, value: string];

/** The three states DGII's pages show (DT "Consulta timbre (QR)", Estados salida). */
export const timbreStates = {
  accepted: 'Aceptado',
  rejected: 'Rechazado',
  notFound: 'No fue encontrada la factura (e-CF)',
} as const;

const htmlEntities: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => htmlEntities[character] ?? character);
}

export function renderTimbrePage(title: string, rows: readonly TimbreRow[]): string {
  const body = rows
    .map(([label, value]) => `<tr><th scope="row">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`)
    .join('');
  return (
    '<!DOCTYPE html><html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1><table>${body}</table></main></body></html>`
  );
}
