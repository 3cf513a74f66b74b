// What each type allows on its lines (Formato e-CF footnotes 50–54; research/ecf-format.md §1.3, §2.5).
import { error, type Finding } from '../finding.js';
import { items, listAt, objectAt, pointer, textAt, tipoeCF, type JsonObject } from './document-view.js';

/** 43, 44 and 47 sell exempt only (4); 46, exports, at ITBIS 0 % only (3). */
const requiredIndicator: Record<string, { value: string; meaning: string }> = {
  '43': { value: '4', meaning: 'exento' },
  '44': { value: '4', meaning: 'exento' },
  '47': { value: '4', meaning: 'exento' },
  '46': { value: '3', meaning: 'ITBIS 0 %' },
};

export function itemRules(document: JsonObject): Finding[] {
  const type = tipoeCF(document) ?? '';
  const findings: Finding[] = [];
  const required = requiredIndicator[type];
  items(document).forEach((item, index) => {
    const at = (field: string, ...rest: string[]) => pointer(['DetallesItems', 'Item', index, field, ...rest]);
    const indicator = textAt(item, ['IndicadorFacturacion']);
    if (required !== undefined && indicator !== undefined && indicator !== required.value) {
      findings.push(
        error(
          at('IndicadorFacturacion'),
          'item_indicator_not_allowed',
          `Type ${type} lines must have IndicadorFacturacion ${required.value} (${required.meaning}).`,
        ),
      );
    }
    const retention = objectAt(item, ['Retencion']);
    if ((type === '41' || type === '47') && retention === undefined) {
      findings.push(
        error(at('Retencion'), 'retention_required', `Every line of a type ${type} e-CF carries its Retencion.`),
      );
    }
    if (type === '47') {
      if (retention !== undefined && textAt(retention, ['MontoISRRetenido']) === undefined) {
        findings.push(
          error(
            at('Retencion', 'MontoISRRetenido'),
            'isr_retention_required',
            'Payments abroad (47) retain ISR on every line: MontoISRRetenido is required.',
          ),
        );
      }
      const kind = textAt(item, ['IndicadorBienoServicio']);
      if (kind !== undefined && kind !== '2') {
        findings.push(
          error(
            at('IndicadorBienoServicio'),
            'service_required',
            'Payments abroad (47) are for services: IndicadorBienoServicio must be 2.',
          ),
        );
      }
    }
    // Footnote 53: an exempt line under a retention agent reports its ITBIS retention as 0 (where the element
    // exists: type 47 retains ISR only and its XSD has no MontoITBISRetenido).
    if (
      type !== '47' &&
      indicator === '4' &&
      retention !== undefined &&
      textAt(retention, ['IndicadorAgenteRetencionoPercepcion']) === '1'
    ) {
      const itbis = textAt(retention, ['MontoITBISRetenido']);
      if (itbis === undefined || !/^0+(\.0+)?$/.test(itbis)) {
        findings.push(
          error(
            at('Retencion', 'MontoITBISRetenido'),
            'exempt_itbis_retention_zero',
            'An exempt line (IndicadorFacturacion 4) with a retention agent must send MontoITBISRetenido as 0.',
          ),
        );
      }
    }
  });
  return findings;
}

/** Gift certificates (FormaPago 5) are a payment form of consumer invoices (32) only. */
export function paymentRules(document: JsonObject): Finding[] {
  const type = tipoeCF(document);
  return listAt(document, ['Encabezado', 'IdDoc', 'TablaFormasPago', 'FormaDePago']).flatMap((payment, index) =>
    textAt(payment, ['FormaPago']) === '5' && type !== '32'
      ? [
          error(
            pointer(['Encabezado', 'IdDoc', 'TablaFormasPago', 'FormaDePago', index, 'FormaPago']),
            'payment_form_not_allowed',
            'FormaPago 5 (bonos o certificados de regalo) is allowed on consumer invoices (32) only.',
          ),
        ]
      : [],
  );
}
