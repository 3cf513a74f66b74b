// Issuer, buyer and referenced taxpayers: check digits, and who must be identified (Formato e-CF, Comprador
// footnotes 4–9; research/ecf-format.md §1.3, §2.5).
import Big from 'big.js';
import { error, type Finding } from '../finding.js';
import { checkTaxpayerId } from '../taxpayer-id.js';
import { consumerSummaryThreshold } from '../timbre-url.js';
import { pointer, textAt, tipoeCF, type JsonObject } from './document-view.js';

const taxpayerFields: (readonly string[])[] = [
  ['Encabezado', 'Emisor', 'RNCEmisor'],
  ['Encabezado', 'Comprador', 'RNCComprador'],
  ['InformacionReferencia', 'RNCOtroContribuyente'],
];

function checkDigits(document: JsonObject): Finding[] {
  const findings: Finding[] = [];
  for (const path of taxpayerFields) {
    const value = textAt(document, path);
    if (value === undefined) continue;
    const problem = checkTaxpayerId(value);
    if (problem !== undefined) {
      findings.push(
        error(
          pointer(path),
          problem === 'format' ? 'taxpayer_id_format' : 'taxpayer_id_check_digit',
          `${value} is not a valid RNC (9 digits) or cédula (11 digits)${problem === 'check_digit' ? ': wrong check digit' : ''}.`,
        ),
      );
    }
  }
  return findings;
}

function isDecimal(text: string): boolean {
  return /^\d+(\.\d+)?$/.test(text);
}

/** Type 32 from DOP 250,000 must identify its buyer (footnote 4); an RNC and a foreign id never go together. */
function buyerIdentification(document: JsonObject): Finding[] {
  const findings: Finding[] = [];
  const rnc = textAt(document, ['Encabezado', 'Comprador', 'RNCComprador']);
  const foreign = textAt(document, ['Encabezado', 'Comprador', 'IdentificadorExtranjero']);
  if (rnc !== undefined && foreign !== undefined) {
    findings.push(
      error(
        pointer(['Encabezado', 'Comprador', 'IdentificadorExtranjero']),
        'buyer_identified_twice',
        'Send RNCComprador or IdentificadorExtranjero, not both.',
      ),
    );
  }
  const total = textAt(document, ['Encabezado', 'Totales', 'MontoTotal']);
  if (
    tipoeCF(document) === '32' &&
    total !== undefined &&
    isDecimal(total) &&
    new Big(total).gte(consumerSummaryThreshold)
  ) {
    if (rnc === undefined && foreign === undefined) {
      findings.push(
        error(
          pointer(['Encabezado', 'Comprador', 'RNCComprador']),
          'buyer_required_from_250000',
          'A consumer invoice (32) of DOP 250,000.00 or more must identify the buyer: RNCComprador, or IdentificadorExtranjero for a foreign buyer.',
        ),
      );
    }
    if (textAt(document, ['Encabezado', 'Comprador', 'RazonSocialComprador']) === undefined) {
      findings.push(
        error(
          pointer(['Encabezado', 'Comprador', 'RazonSocialComprador']),
          'buyer_required_from_250000',
          "A consumer invoice (32) of DOP 250,000.00 or more must give the buyer's name.",
        ),
      );
    }
  }
  return findings;
}

export function partyRules(document: JsonObject): Finding[] {
  return [...checkDigits(document), ...buyerIdentification(document)];
}
