// The layout of the RI: pure, from the printable data to pages of positioned boxes (no pdfkit), so its geometry
// (QR size and margins, page breaks) is tested without PDF tools. Text must already be printable (printer.ts
// replaces what the font cannot show); widths come from `measure`, the metrics the painter sets the text with.
import { contingencyLegend, deferredSendingLegend } from './printable.js';
import type { PrintableDocument } from './printable.schema.js';
import { ok, type Result } from '../../platform/result.js';
import { measure as fontMeasure, type Measure } from './fonts.js';
import { layoutRoll } from './layout-roll.js';
import { layoutSheet, sheetRowCapacity } from './sheet-pages.js';
import { pngSize } from './logo.js';
import { paperGeometry, type PaperFormat } from './paper.js';
import type { Plan } from './plan.js';
import { qrMatrix } from './qr.js';

export interface PrintBranding {
  /** Normalised at upload: 8-bit, non-interlaced PNG of at most 1200 × 600 px. Drawn on A4 and Letter only. */
  logoPng: Buffer | null;
  logoSha256: string | null;
  /** Free text, printed small above the footer. */
  footerNote: string | null;
}

export function layout(
  printable: PrintableDocument,
  format: PaperFormat,
  branding: PrintBranding,
  measure: Measure,
): Result<Plan> {
  const qr = qrMatrix(printable.qr.url);
  const geometry = paperGeometry[format];
  const footerNote = branding.footerNote === null || branding.footerNote.trim() === '' ? null : branding.footerNote;
  if (geometry.kind === 'roll')
    return ok({
      format,
      pages: [layoutRoll({ printable, geometry, footerNote, qrModules: qr.size, measure })],
      qr,
    });
  // Model 2.3 prints no logo on rolls; on sheets it sits top left.
  const logo = branding.logoPng === null ? null : pngSize(branding.logoPng);
  const pages = layoutSheet({ printable, geometry, logo, footerNote, qrModules: qr.size, measure });
  return pages.ok ? ok({ format, pages: pages.value, qr }) : pages;
}

// A full header: logo, every issuer field, buyer, a note's reference lines, both legends, every total, a one-line
// note, and a v11 QR (the largest an e-CF URL needs at level M).
function referenceDocument(): PrintableDocument {
  const amount = (code: string, label: string) => ({ code, label, amount: '9999999999.99' });
  const line = {
    lineNumber: '1',
    billingIndicator: '1',
    exempt: false,
    mark: null,
    name: 'Artículo',
    description: null,
    quantity: '1',
    unit: { code: '43', name: 'Unidad' },
    unitPrice: '9999999999.99',
    discount: null,
    surcharge: null,
    amount: '9999999999.99',
    itbis: '9999999999.99',
  };
  const place = { code: '010101', name: 'SANTO DOMINGO DE GUZMÁN (D. M.).' };
  return {
    id: 'reference',
    status: 'accepted',
    ecfType: '33',
    typeName: 'Nota de Débito Electrónica',
    eNCF: 'E330000000001',
    sequenceExpiry: '31-12-2027',
    issueDate: '01-01-2027',
    issuer: {
      rnc: '131000002',
      legalName: 'Razón Social del Emisor, S.R.L.',
      tradeName: 'Nombre Comercial',
      branch: 'Sucursal Principal',
      address: 'Avenida Abraham Lincoln esquina José Amado Soler, Edificio Ejemplo, Local 101, Ensanche Piantini',
      municipality: place,
      province: { code: '010000', name: 'DISTRITO NACIONAL' },
    },
    buyer: { rnc: '131000012', foreignId: null, legalName: 'Razón Social del Comprador, S.R.L.', address: null },
    reference: {
      modifiedNcf: 'E310000000001',
      modifiedNcfDate: null,
      modificationCode: { code: '3', name: 'Corrige montos del NCF modificado' },
      reason: null,
    },
    lines: [line],
    totals: {},
    totalLines: [
      amount('MontoGravadoTotal', 'Subtotal Gravado'),
      amount('MontoExento', 'Subtotal Exento'),
      amount('MontoImpuestoSelectivoConsumoEspecifico', 'Total ISC Específico'),
      amount('MontoImpuestoSelectivoConsumoAdvalorem', 'Total ISC Ad Valorem'),
      amount('OtrosImpuestosAdicionales', 'Otros Impuestos Adicionales'),
      amount('TotalITBIS', 'Total ITBIS'),
      amount('MontoNoFacturable', 'Monto No Facturable'),
      amount('MontoTotal', 'Total'),
    ],
    pagination: null,
    deferredSending: true,
    contingency: true,
    currency: null,
    securityCode: 'AbC12+',
    signatureDate: '01-01-2027 00:00:00',
    qr: { url: '', consumerSummary: false },
    legends: [
      { code: 'deferred_sending', text: deferredSendingLegend },
      { code: 'contingency', text: contingencyLegend },
    ],
    notices: [],
  };
}

const capacities = new Map<PaperFormat, number>();

/**
 * How many one-line items fit on every page of an A4 or Letter RI with a full header (logo, every issuer field,
 * buyer, reference, both legends, every total, a one-line note): what a builder writing Paginacion should put on
 * a page so the XML and the printed pages agree. A roll is one continuous page: no limit.
 */
export function linesPerPage(format: PaperFormat): number {
  const geometry = paperGeometry[format];
  if (geometry.kind === 'roll') return Number.POSITIVE_INFINITY;
  let lines = capacities.get(format);
  if (lines === undefined) {
    const room = sheetRowCapacity({
      printable: referenceDocument(),
      geometry,
      logo: { width: 1200, height: 600 },
      footerNote: 'Nota',
      qrModules: 61,
      measure: fontMeasure,
    });
    lines = Math.floor(Math.min(room.middle, room.last) / room.row);
    capacities.set(format, lines);
  }
  return lines;
}
