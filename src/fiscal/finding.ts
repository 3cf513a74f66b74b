/**
 * One thing wrong (error) or doubtful (warning) with a document. `pointer` is a JSON pointer into the request
 * body (`/Encabezado/IdDoc/TipoeCF`, `/DetallesItems/Item/0/MontoItem`), or an XPath-like path into XML.
 */
export interface Finding {
  pointer: string;
  code: string;
  severity: 'error' | 'warning';
  message: string;
}

export function error(pointer: string, code: string, message: string): Finding {
  return { pointer, code, severity: 'error', message };
}

export function warning(pointer: string, code: string, message: string): Finding {
  return { pointer, code, severity: 'warning', message };
}
