// One entry for checking an e-CF request before anything is allocated or signed: structure and per-type
// obligations from the model, then (only on a sound structure, where they mean something) the cross-field
// rules and the totals. Errors stop the document; warnings (totals beyond DGII's tolerance) do not.
import { validateStructure } from './build/index.js';
import { error, type Finding } from './finding.js';
import { isEcfType } from './model/index.js';
import { checkFiscalRules } from './rules/index.js';
import type { JsonObject } from './rules/document-view.js';
import { textAt } from './rules/document-view.js';
import { checkTotals } from './totals/index.js';

export interface EcfValidation {
  /** True when no finding is an error. */
  acceptable: boolean;
  findings: Finding[];
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function validateEcfDocument(document: unknown, context: { now: Date }): EcfValidation {
  if (!isObject(document))
    return {
      acceptable: false,
      findings: [error('/', 'not_an_object', 'The e-CF is a JSON object with Encabezado, DetallesItems, ...')],
    };
  const type = textAt(document, ['Encabezado', 'IdDoc', 'TipoeCF']);
  if (type === undefined || !isEcfType(type)) {
    return {
      acceptable: false,
      findings: [
        error('/Encabezado/IdDoc/TipoeCF', 'unknown_type', 'TipoeCF is one of 31, 32, 33, 34, 41, 43, 44, 45, 46, 47.'),
      ],
    };
  }
  const structure = validateStructure(type, document);
  if (structure.some((finding) => finding.severity === 'error')) return { acceptable: false, findings: structure };
  const findings = [...structure, ...checkFiscalRules(document, context), ...checkTotals(document)];
  return { acceptable: !findings.some((finding) => finding.severity === 'error'), findings };
}
