// RFCE, the summary DGII receives (at fc.dgii.gov.do) instead of a type 32 under DOP 250,000.00 (Formato Resumen
// Factura de Consumo Electrónica v1.0; XSD RFCE 32 v.1.0; research/dgii-protocol.md §8). It is written from the
// SIGNED full e-CF 32, never from the client's JSON, so the summary says what was signed: every value is copied as
// written in that e-CF, and CodigoSeguridadeCF is the first 6 characters of the e-CF's own SignatureValue (§5).
// The RFCE is then signed like any other document (signCanonicalDocument); it has no FechaHoraFirma.
import type { EcfObject, EcfValue } from '../build/index.js';
import { error, type Finding } from '../finding.js';
import { parseEcf } from '../parse/index.js';
import { consumerSummaryThreshold, isConsumerSummary } from '../timbre-url.js';
import { leaf, writeXmlDocument, type XmlElement } from '../xml/xml-writer.js';
import { verifyEnvelopedSignature } from '../xmldsig/index.js';

export type RfceResult = { ok: true; xml: string; codigoSeguridad: string } | { ok: false; findings: Finding[] };

/** RFCE-32.xsd's Totales, in its order; the ImpuestosAdicionales table sits between MontoImpuestoAdicional and MontoTotal. */
const totalsBeforeTable = [
  'MontoGravadoTotal',
  'MontoGravadoI1',
  'MontoGravadoI2',
  'MontoGravadoI3',
  'MontoExento',
  'TotalITBIS',
  'TotalITBIS1',
  'TotalITBIS2',
  'TotalITBIS3',
  'MontoImpuestoAdicional',
] as const;
const totalsAfterTable = ['MontoNoFacturable', 'MontoPeriodo'] as const;
const additionalTaxFields = [
  'TipoImpuesto',
  'MontoImpuestoSelectivoConsumoEspecifico',
  'MontoImpuestoSelectivoConsumoAdvalorem',
  'OtrosImpuestosAdicionales',
] as const;
const buyerFields = ['RNCComprador', 'IdentificadorExtranjero', 'RazonSocialComprador'] as const;

const amount = /^\d{1,16}(?:\.\d{1,2})?$/;

function isGroup(value: EcfValue | undefined): value is EcfObject {
  return typeof value === 'object' && !Array.isArray(value);
}

function groupsOf(value: EcfValue | undefined): EcfObject[] {
  if (isGroup(value)) return [value];
  if (!Array.isArray(value)) return [];
  return (value as readonly (string | EcfObject)[]).filter((entry): entry is EcfObject => typeof entry === 'object');
}

function textOf(value: EcfValue | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The leaves of `names` that `group` holds, in the order given; absent or empty ones are left out. */
function leaves(group: EcfObject | undefined, names: readonly string[]): XmlElement[] {
  if (group === undefined) return [];
  return names.flatMap((name) => {
    const text = textOf(group[name]);
    return text === undefined ? [] : [leaf(name, text)];
  });
}

/** A container written only when it holds something (DGII rejects empty elements). */
function optionalGroup(name: string, content: XmlElement[]): XmlElement[] {
  return content.length > 0 ? [{ name, content }] : [];
}

/**
 * The RFCE for a signed full e-CF 32 under DOP 250,000.00, unsigned (sign it with signCanonicalDocument), and the
 * security code to print under the QR. Refuses anything else: another type, 250,000.00 or more, an e-CF that is
 * not signed or whose signature does not verify (changed after signing).
 */
export function buildRfce(signedEcf32: string): RfceResult {
  const parsed = parseEcf(signedEcf32);
  if (!parsed.ok) return parsed;
  const ecf = parsed.document;
  const encabezado = isGroup(ecf['Encabezado']) ? ecf['Encabezado'] : undefined;
  const idDoc = isGroup(encabezado?.['IdDoc']) ? encabezado['IdDoc'] : undefined;
  const emisor = isGroup(encabezado?.['Emisor']) ? encabezado['Emisor'] : undefined;
  const comprador = isGroup(encabezado?.['Comprador']) ? encabezado['Comprador'] : undefined;
  const totales = isGroup(encabezado?.['Totales']) ? encabezado['Totales'] : undefined;

  const tipo = textOf(idDoc?.['TipoeCF']);
  if (tipo !== '32') {
    return refuse(
      '/ECF/Encabezado/IdDoc/TipoeCF',
      'rfce_not_type_32',
      `Only a type 32 (Factura de Consumo) is summarised as an RFCE; this e-CF is type ${tipo ?? '(none)'}.`,
    );
  }
  const montoTotal = textOf(totales?.['MontoTotal']);
  if (montoTotal === undefined || !amount.test(montoTotal)) {
    return refuse(
      '/ECF/Encabezado/Totales/MontoTotal',
      'amount_format',
      'MontoTotal is a non-negative amount with at most two decimals.',
    );
  }
  if (!isConsumerSummary(tipo, montoTotal)) {
    return refuse(
      '/ECF/Encabezado/Totales/MontoTotal',
      'rfce_amount_not_below_threshold',
      `MontoTotal ${montoTotal} is not below DOP ${consumerSummaryThreshold}: this type 32 goes in full to DGII's reception, not as an RFCE.`,
    );
  }

  const verified = verifyEnvelopedSignature(signedEcf32);
  if (!verified.ok) {
    const unsigned = verified.problems.some((problem) => problem.code === 'signature_missing');
    return {
      ok: false,
      findings: unsigned
        ? [
            error(
              '/ECF/Signature',
              'ecf_not_signed',
              'The RFCE is written from the signed e-CF 32; this one has no Signature.',
            ),
          ]
        : verified.problems.map((problem) =>
            error(
              '/ECF/Signature',
              'ecf_signature_invalid',
              `The e-CF 32's signature does not verify (${problem.code}): ${problem.message}`,
            ),
          ),
    };
  }

  const findings: Finding[] = [];
  const required = (group: EcfObject | undefined, at: string, name: string): XmlElement => {
    const text = textOf(group?.[name]);
    if (text === undefined)
      findings.push(
        error(
          `/ECF/Encabezado/${at}/${name}`,
          'missing',
          `${name} is required in the RFCE and missing from the e-CF 32.`,
        ),
      );
    return leaf(name, text ?? '-');
  };

  const formasPago = groupsOf(
    isGroup(idDoc?.['TablaFormasPago']) ? idDoc['TablaFormasPago']['FormaDePago'] : undefined,
  ).flatMap((entry) => optionalGroup('FormaDePago', leaves(entry, ['FormaPago', 'MontoPago'])));
  const additionalTaxes = groupsOf(
    isGroup(totales?.['ImpuestosAdicionales']) ? totales['ImpuestosAdicionales']['ImpuestoAdicional'] : undefined,
  ).flatMap((entry) => optionalGroup('ImpuestoAdicional', leaves(entry, additionalTaxFields)));

  const content: XmlElement[] = [
    leaf('Version', '1.0'),
    {
      name: 'IdDoc',
      content: [
        leaf('TipoeCF', tipo),
        required(idDoc, 'IdDoc', 'eNCF'),
        required(idDoc, 'IdDoc', 'TipoIngresos'),
        required(idDoc, 'IdDoc', 'TipoPago'),
        ...optionalGroup('TablaFormasPago', formasPago),
      ],
    },
    {
      name: 'Emisor',
      content: [
        required(emisor, 'Emisor', 'RNCEmisor'),
        required(emisor, 'Emisor', 'RazonSocialEmisor'),
        required(emisor, 'Emisor', 'FechaEmision'),
      ],
    },
    // The XSD makes Comprador mandatory, the format marks it optional (3) and DGII forbids empty elements: without
    // any of its three fields in the e-CF it is left out (research/dgii-protocol.md §8.3, the conflict noted there).
    ...optionalGroup('Comprador', leaves(comprador, buyerFields)),
    {
      name: 'Totales',
      content: [
        ...leaves(totales, totalsBeforeTable),
        ...optionalGroup('ImpuestosAdicionales', additionalTaxes),
        leaf('MontoTotal', montoTotal),
        ...leaves(totales, totalsAfterTable),
      ],
    },
    leaf('CodigoSeguridadeCF', verified.securityCode),
  ];
  if (findings.length > 0) return { ok: false, findings };
  const xml = writeXmlDocument({ name: 'RFCE', content: [{ name: 'Encabezado', content }] });
  return { ok: true, xml, codigoSeguridad: verified.securityCode };
}

function refuse(pointer: string, code: string, message: string): RfceResult {
  return { ok: false, findings: [error(pointer, code, message)] };
}
