// The structural check of a client's document against the model of its type: unknown keys, shapes, data types,
// lengths and patterns, catalogue codes, and the Formato e-CF obligations (1 missing, 0 present). Fiscal rules
// across fields and the totals are checked elsewhere.
import { error } from '../finding.js';
import type { Finding } from '../finding.js';
import type { EcfType } from '../model/ecf-model-types.js';
import { isEcfType } from '../model/ecf-model.js';
import { readEcfDocument } from './read-ecf-document.js';

export function validateStructure(type: EcfType, document: unknown): Finding[] {
  const { findings } = readEcfDocument(type, document);
  const declared = declaredType(document);
  if (declared !== undefined && declared !== type) {
    findings.push(
      error('/Encabezado/IdDoc/TipoeCF', 'type_mismatch', `TipoeCF ${declared} does not match e-CF ${type}`),
    );
  }
  return findings;
}

/** Encabezado.IdDoc.TipoeCF as sent (a string, or a number such as 31). */
export function declaredType(document: unknown): string | undefined {
  const value = field(field(field(document, 'Encabezado'), 'IdDoc'), 'TipoeCF');
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

export function documentType(document: unknown): EcfType | undefined {
  const declared = declaredType(document);
  return isEcfType(declared) ? declared : undefined;
}

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[name]
    : undefined;
}
