// The data of the printed representation (RI) of an e-CF, read from the signed XML as archived, never from the
// request: what is printed must be what was signed. Order and legends follow Informe Técnico e-CF §17.2 (header:
// type in words, e-NCF, sequence expiry, modified e-NCF and modification code in words for notes; issuer; buyer;
// lines with "E" beside exempt items; totals; QR, "Código de Seguridad" and "Fecha de Firma Digital"). Legends carry
// only DGII's own wording. Type 32 under DOP 250,000 differs in its QR (ConsultaTimbreFC, four parameters), an
// optional buyer RNC and no sequence expiry. Layout, pagination and the QR image are the printer's business.
import type { FiscalEnvironment } from '../../config.js';
import type { EcfObject, EcfValue } from '../../fiscal/build/index.js';
import type { CatalogueEntry } from '../../fiscal/model/index.js';
import { codigosModificacion, municipios, provincias, unidadesMedida } from '../../fiscal/model/index.js';
import { tiposECF } from '../../fiscal/model/generated/catalogues.js';
import { isConsumerSummary, timbreUrl } from '../../fiscal/timbre-url.js';
import type { DocumentStatus } from '../../platform/db/schema.js';
import type { PrintableDocument } from './document-views.schema.js';

function group(value: EcfValue | undefined): EcfObject | undefined {
  return typeof value === 'object' && !Array.isArray(value) ? (value as EcfObject) : undefined;
}

function groups(value: EcfValue | undefined): readonly EcfObject[] {
  if (!Array.isArray(value)) return group(value) === undefined ? [] : [value as EcfObject];
  return value.filter((entry): entry is EcfObject => typeof entry === 'object');
}

function textAt(node: EcfObject | undefined, name: string): string | undefined {
  const value = node?.[name];
  return typeof value === 'string' ? value : undefined;
}

function orNull(value: string | undefined): string | null {
  return value ?? null;
}

/** Catalogue labels of units carry the abbreviation then, after a tab, the name: the RI wants the unit in words. */
function inWords(
  catalogue: readonly CatalogueEntry[],
  code: string | undefined,
): { code: string; name: string } | null {
  if (code === undefined) return null;
  const entry = catalogue.find((candidate) => candidate.code === code);
  const label = entry?.label ?? code;
  return { code, name: label.includes('\t') ? (label.split('\t').pop() ?? label).trim() : label };
}

const receivedByDgii: ReadonlySet<DocumentStatus> = new Set<DocumentStatus>(['accepted', 'accepted_conditional']);

export interface PrintableContext {
  id: string;
  status: DocumentStatus;
  environment: FiscalEnvironment;
  /** From the SignatureValue of the archived signed XML. */
  securityCode: string;
}

export function printableOf(document: EcfObject, context: PrintableContext): PrintableDocument {
  const header = group(document['Encabezado']);
  const idDoc = group(header?.['IdDoc']);
  const issuer = group(header?.['Emisor']);
  const buyer = group(header?.['Comprador']);
  const totals = group(header?.['Totales']);
  const otherCurrency = group(header?.['OtraMoneda']);
  const reference = group(document['InformacionReferencia']);

  const ecfType = textAt(idDoc, 'TipoeCF') ?? '';
  const typeName = tiposECF.find((entry) => entry.code === ecfType)?.label ?? ecfType;
  const eNCF = textAt(idDoc, 'eNCF') ?? '';
  const sequenceExpiry = orNull(textAt(idDoc, 'FechaVencimientoSecuencia'));
  const issueDate = textAt(issuer, 'FechaEmision') ?? '';
  const issuerRnc = textAt(issuer, 'RNCEmisor') ?? '';
  const buyerRnc = textAt(buyer, 'RNCComprador');
  const montoTotal = textAt(totals, 'MontoTotal') ?? '0.00';
  const signatureDate = textAt(document, 'FechaHoraFirma') ?? '';
  const consumerSummary = isConsumerSummary(ecfType, montoTotal);

  const lines = groups(group(document['DetallesItems'])?.['Item']).map((item) => {
    const billingIndicator = textAt(item, 'IndicadorFacturacion') ?? '';
    const exempt = billingIndicator === '4';
    return {
      lineNumber: textAt(item, 'NumeroLinea') ?? '',
      billingIndicator,
      exempt,
      mark: exempt ? ('E' as const) : null,
      name: textAt(item, 'NombreItem') ?? '',
      description: orNull(textAt(item, 'DescripcionItem')),
      quantity: textAt(item, 'CantidadItem') ?? '',
      unit: inWords(unidadesMedida, textAt(item, 'UnidadMedida')),
      unitPrice: textAt(item, 'PrecioUnitarioItem') ?? '',
      discount: orNull(textAt(item, 'DescuentoMonto')),
      surcharge: orNull(textAt(item, 'RecargoMonto')),
      amount: textAt(item, 'MontoItem') ?? '',
    };
  });

  // Only the amounts (string leaves) of Totales: its nested tables (ImpuestosAdicionales) are per-tax detail.
  const totalAmounts: Record<string, string> = {};
  for (const [name, value] of Object.entries(totals ?? {})) if (typeof value === 'string') totalAmounts[name] = value;

  const modifiedNcf = textAt(reference, 'NCFModificado');
  const modificationCode = inWords(codigosModificacion, textAt(reference, 'CodigoModificacion'));
  const securityCode = context.securityCode;

  const legends: PrintableDocument['legends'] = [
    { code: 'type_name', text: typeName },
    { code: 'encf', text: `e-NCF: ${eNCF}` },
  ];
  if (sequenceExpiry !== null) legends.push({ code: 'sequence_expiry', text: `Fecha Vencimiento: ${sequenceExpiry}` });
  if (modifiedNcf !== undefined) legends.push({ code: 'modified_encf', text: `e-NCF Modificado: ${modifiedNcf}` });
  if (modificationCode !== null)
    legends.push({ code: 'modification_code', text: `Código de Modificación: ${modificationCode.name}` });
  legends.push({ code: 'security_code', text: `Código de Seguridad: ${securityCode}` });
  legends.push({ code: 'signature_date', text: `Fecha de Firma Digital: ${signatureDate}` });
  // Informe Técnico §17: an RI of an e-CF DGII has not received, or has rejected, cannot support a fiscal credit.
  // Said to the integrator, not printed: the document may well be accepted by the time the paper is read.
  const notices: PrintableDocument['notices'] = receivedByDgii.has(context.status)
    ? []
    : [
        {
          code: 'not_accepted_yet',
          text: 'DGII has not accepted this e-CF (yet): until it does, its printed representation cannot support a fiscal credit.',
        },
      ];

  return {
    id: context.id,
    status: context.status,
    ecfType,
    typeName,
    eNCF,
    sequenceExpiry,
    issueDate,
    issuer: {
      rnc: issuerRnc,
      legalName: textAt(issuer, 'RazonSocialEmisor') ?? '',
      tradeName: orNull(textAt(issuer, 'NombreComercial')),
      branch: orNull(textAt(issuer, 'Sucursal')),
      address: orNull(textAt(issuer, 'DireccionEmisor')),
      municipality: inWords(municipios, textAt(issuer, 'Municipio')),
      province: inWords(provincias, textAt(issuer, 'Provincia')),
    },
    buyer:
      buyer === undefined
        ? null
        : {
            rnc: orNull(buyerRnc),
            foreignId: orNull(textAt(buyer, 'IdentificadorExtranjero')),
            legalName: orNull(textAt(buyer, 'RazonSocialComprador')),
            address: orNull(textAt(buyer, 'DireccionComprador')),
          },
    reference:
      modifiedNcf === undefined
        ? null
        : {
            modifiedNcf,
            modifiedNcfDate: orNull(textAt(reference, 'FechaNCFModificado')),
            modificationCode,
            reason: orNull(textAt(reference, 'RazonModificacion')),
          },
    lines,
    totals: totalAmounts,
    currency:
      otherCurrency === undefined
        ? null
        : {
            code: textAt(otherCurrency, 'TipoMoneda') ?? '',
            exchangeRate: orNull(textAt(otherCurrency, 'TipoCambio')),
          },
    securityCode,
    signatureDate,
    qr: {
      url: timbreUrl(context.environment, {
        TipoeCF: ecfType,
        RNCEmisor: issuerRnc,
        RNCComprador: buyerRnc,
        eNCF,
        FechaEmision: issueDate,
        MontoTotal: montoTotal,
        FechaHoraFirma: signatureDate,
        CodigoSeguridad: securityCode,
      }),
      consumerSummary,
    },
    legends,
    notices,
  };
}
