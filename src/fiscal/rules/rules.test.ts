/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return --
   the fixtures are changed freely, into shapes no type would allow, which is the point of these cases. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Finding } from '../finding.js';
import type { JsonObject } from './document-view.js';
import { checkFiscalRules } from './index.js';

const now = new Date('2026-11-21T16:00:00Z'); // 12:00 in Santo Domingo

/** A small, consistent document of the given type; each case changes what it tests. */
function documentOf(type: string, change: (document: Record<string, any>) => void = () => undefined): JsonObject {
  const indicator = type === '46' ? '3' : ['43', '44', '47'].includes(type) ? '4' : '1';
  const document: Record<string, any> = {
    Encabezado: {
      Version: '1.0',
      IdDoc: { TipoeCF: type, eNCF: `E${type}0000000001`, TipoPago: '1' },
      Emisor: { RNCEmisor: '131880681', RazonSocialEmisor: 'Emisora SRL', FechaEmision: '20-11-2026' },
      Comprador:
        type === '43' || type === '47'
          ? undefined
          : { RNCComprador: '130862346', RazonSocialComprador: 'Compradora SRL' },
      Totales: { MontoTotal: '1180.00' },
    },
    DetallesItems: {
      Item: [
        {
          NumeroLinea: '1',
          IndicadorFacturacion: indicator,
          ...(type === '41'
            ? { Retencion: { IndicadorAgenteRetencionoPercepcion: '1', MontoITBISRetenido: '180.00' } }
            : {}),
          ...(type === '47'
            ? {
                Retencion: { IndicadorAgenteRetencionoPercepcion: '1', MontoISRRetenido: '270.00' },
                IndicadorBienoServicio: '2',
              }
            : {}),
          NombreItem: 'Servicio',
          IndicadorBienoServicio: type === '47' ? '2' : '1',
          CantidadItem: '1',
          PrecioUnitarioItem: '1000.00',
          MontoItem: '1000.00',
        },
      ],
    },
    FechaHoraFirma: '21-11-2026 11:59:00',
  };
  if (type === '43' || type === '47') delete document.Encabezado.Comprador;
  if (type === '33' || type === '34') {
    document.InformacionReferencia = {
      NCFModificado: 'E310000000007',
      FechaNCFModificado: '10-11-2026',
      CodigoModificacion: '3',
      RazonModificacion: 'Corrige montos',
    };
    if (type === '34') document.Encabezado.IdDoc.IndicadorNotaCredito = '0';
  }
  change(document);
  return document;
}

function codesAt(findings: Finding[]): string[] {
  return findings.map((finding) => `${finding.severity} ${finding.code} ${finding.pointer}`);
}

describe('fiscal rules: a sound document of each type passes', () => {
  for (const type of ['31', '32', '33', '34', '41', '43', '44', '45', '46', '47']) {
    it(`finds nothing wrong in a sound type ${type}`, () => {
      assert.deepEqual(checkFiscalRules(documentOf(type), { now }), []);
    });
  }
});

// [name, type, change, expected findings ("severity code pointer")]
const failing: [string, string, (document: Record<string, any>) => void, string[]][] = [
  [
    'an e-NCF of another type',
    '31',
    (d) => (d.Encabezado.IdDoc.eNCF = 'E320000000001'),
    ['error encf_type_mismatch /Encabezado/IdDoc/eNCF'],
  ],
  [
    'a malformed e-NCF',
    '31',
    (d) => (d.Encabezado.IdDoc.eNCF = 'B0100000001'),
    ['error encf_format /Encabezado/IdDoc/eNCF'],
  ],
  [
    'an issuer RNC with a wrong check digit',
    '31',
    (d) => (d.Encabezado.Emisor.RNCEmisor = '131880680'),
    ['error taxpayer_id_check_digit /Encabezado/Emisor/RNCEmisor'],
  ],
  [
    'a buyer cédula with a wrong check digit',
    '31',
    (d) => (d.Encabezado.Comprador.RNCComprador = '00113918204'),
    ['error taxpayer_id_check_digit /Encabezado/Comprador/RNCComprador'],
  ],
  [
    'a buyer id of 10 digits',
    '31',
    (d) => (d.Encabezado.Comprador.RNCComprador = '0011391820'),
    ['error taxpayer_id_format /Encabezado/Comprador/RNCComprador'],
  ],
  [
    'both an RNC and a foreign id for the buyer',
    '32',
    (d) => (d.Encabezado.Comprador.IdentificadorExtranjero = 'P1234567'),
    ['error buyer_identified_twice /Encabezado/Comprador/IdentificadorExtranjero'],
  ],
  [
    'a 32 of DOP 250,000 without buyer',
    '32',
    (d) => {
      d.Encabezado.Totales.MontoTotal = '250000.00';
      delete d.Encabezado.Comprador;
    },
    [
      'error buyer_required_from_250000 /Encabezado/Comprador/RNCComprador',
      'error buyer_required_from_250000 /Encabezado/Comprador/RazonSocialComprador',
    ],
  ],
  [
    'a credit note without reference',
    '34',
    (d) => delete d.InformacionReferencia,
    ['error reference_required /InformacionReferencia'],
  ],
  [
    'a debit note without CodigoModificacion',
    '33',
    (d) => delete d.InformacionReferencia.CodigoModificacion,
    ['error reference_field_required /InformacionReferencia/CodigoModificacion'],
  ],
  [
    'an unknown CodigoModificacion',
    '33',
    (d) => (d.InformacionReferencia.CodigoModificacion = '7'),
    ['error modification_code_unknown /InformacionReferencia/CodigoModificacion'],
  ],
  [
    'CodigoModificacion 3 outside notes',
    '31',
    (d) =>
      (d.InformacionReferencia = {
        NCFModificado: 'B0100000001',
        FechaNCFModificado: '01-11-2026',
        CodigoModificacion: '3',
      }),
    ['error modification_code_not_allowed /InformacionReferencia/CodigoModificacion'],
  ],
  [
    'a referenced NCF of 12 characters',
    '34',
    (d) => (d.InformacionReferencia.NCFModificado = 'E31000000007'),
    ['error reference_ncf_format /InformacionReferencia/NCFModificado'],
  ],
  [
    'a modified document dated after the note',
    '33',
    (d) => (d.InformacionReferencia.FechaNCFModificado = '21-11-2026'),
    ['error reference_after_emission /InformacionReferencia/FechaNCFModificado'],
  ],
  [
    'IndicadorNotaCredito 0 for an invoice 45 days old',
    '34',
    (d) => (d.InformacionReferencia.FechaNCFModificado = '06-10-2026'),
    ['error credit_note_indicator /Encabezado/IdDoc/IndicadorNotaCredito'],
  ],
  [
    'a taxed line in a type 43',
    '43',
    (d) => (d.DetallesItems.Item[0].IndicadorFacturacion = '1'),
    ['error item_indicator_not_allowed /DetallesItems/Item/0/IndicadorFacturacion'],
  ],
  [
    'a taxed line in a type 44',
    '44',
    (d) => (d.DetallesItems.Item[0].IndicadorFacturacion = '2'),
    ['error item_indicator_not_allowed /DetallesItems/Item/0/IndicadorFacturacion'],
  ],
  [
    'an exempt line in an export (46)',
    '46',
    (d) => (d.DetallesItems.Item[0].IndicadorFacturacion = '4'),
    ['error item_indicator_not_allowed /DetallesItems/Item/0/IndicadorFacturacion'],
  ],
  [
    'a purchase (41) line without retention',
    '41',
    (d) => delete d.DetallesItems.Item[0].Retencion,
    ['error retention_required /DetallesItems/Item/0/Retencion'],
  ],
  [
    'a payment abroad (47) without ISR retained',
    '47',
    (d) => delete d.DetallesItems.Item[0].Retencion.MontoISRRetenido,
    ['error isr_retention_required /DetallesItems/Item/0/Retencion/MontoISRRetenido'],
  ],
  [
    'a payment abroad (47) for goods',
    '47',
    (d) => (d.DetallesItems.Item[0].IndicadorBienoServicio = '1'),
    ['error service_required /DetallesItems/Item/0/IndicadorBienoServicio'],
  ],
  [
    'an exempt line with ITBIS retained',
    '41',
    (d) =>
      Object.assign(d.DetallesItems.Item[0], {
        IndicadorFacturacion: '4',
        Retencion: { IndicadorAgenteRetencionoPercepcion: '1', MontoITBISRetenido: '10.00' },
      }),
    ['error exempt_itbis_retention_zero /DetallesItems/Item/0/Retencion/MontoITBISRetenido'],
  ],
  [
    'gift certificates outside consumer invoices',
    '31',
    (d) =>
      (d.Encabezado.IdDoc.TablaFormasPago = {
        FormaDePago: [
          { FormaPago: '1', MontoPago: '100.00' },
          { FormaPago: '5', MontoPago: '1080.00' },
        ],
      }),
    ['error payment_form_not_allowed /Encabezado/IdDoc/TablaFormasPago/FormaDePago/1/FormaPago'],
  ],
  [
    'an emission date tomorrow (GMT-4)',
    '31',
    (d) => (d.Encabezado.Emisor.FechaEmision = '22-11-2026'),
    ['error date_in_future /Encabezado/Emisor/FechaEmision'],
  ],
  [
    'an impossible date',
    '31',
    (d) => (d.Encabezado.Emisor.FechaEmision = '31-11-2026'),
    ['error date_invalid /Encabezado/Emisor/FechaEmision'],
  ],
  [
    'a signature time in the future',
    '31',
    (d) => (d.FechaHoraFirma = '21-11-2026 12:00:01'),
    ['error date_in_future /FechaHoraFirma'],
  ],
  [
    'a sequence that expired before emission',
    '31',
    (d) => (d.Encabezado.IdDoc.FechaVencimientoSecuencia = '19-11-2026'),
    ['error sequence_expired /Encabezado/IdDoc/FechaVencimientoSecuencia'],
  ],
  [
    'a payment limit before emission',
    '31',
    (d) => Object.assign(d.Encabezado.IdDoc, { TipoPago: '2', FechaLimitePago: '19-11-2026' }),
    ['error payment_limit_before_emission /Encabezado/IdDoc/FechaLimitePago'],
  ],
  [
    'a payment limit on a cash sale',
    '31',
    (d) => (d.Encabezado.IdDoc.FechaLimitePago = '30-11-2026'),
    ['warning payment_limit_without_credit /Encabezado/IdDoc/FechaLimitePago'],
  ],
  [
    'a reversed service period',
    '31',
    (d) => Object.assign(d.Encabezado.IdDoc, { FechaDesde: '10-11-2026', FechaHasta: '01-11-2026' }),
    ['error period_reversed /Encabezado/IdDoc/FechaHasta'],
  ],
];

describe('fiscal rules: each failing case is reported where it is', () => {
  for (const [name, type, change, expected] of failing) {
    it(`reports ${name}`, () => {
      assert.deepEqual(codesAt(checkFiscalRules(documentOf(type, change), { now })), expected);
    });
  }
});

// The passing side of the edges above.
const passing: [string, string, (document: Record<string, any>) => void][] = [
  ['a payment abroad (47) retaining ISR only: its XSD has no MontoITBISRetenido', '47', () => undefined],
  [
    'a 32 under DOP 250,000 without buyer',
    '32',
    (d) => {
      d.Encabezado.Totales.MontoTotal = '249999.99';
      delete d.Encabezado.Comprador;
    },
  ],
  [
    'a 32 of DOP 250,000 with a foreign buyer',
    '32',
    (d) => {
      d.Encabezado.Totales.MontoTotal = '250000.00';
      d.Encabezado.Comprador = { IdentificadorExtranjero: 'P1234567', RazonSocialComprador: 'Turista' };
    },
  ],
  [
    'IndicadorNotaCredito 1 for an invoice 31 days old',
    '34',
    (d) => {
      d.InformacionReferencia.FechaNCFModificado = '20-10-2026';
      d.Encabezado.IdDoc.IndicadorNotaCredito = '1';
    },
  ],
  [
    'IndicadorNotaCredito 0 for an invoice exactly 30 days old',
    '34',
    (d) => (d.InformacionReferencia.FechaNCFModificado = '21-10-2026'),
  ],
  [
    'a B-series NCF replaced after contingency (code 4)',
    '31',
    (d) =>
      (d.InformacionReferencia = {
        NCFModificado: 'B0100000001',
        FechaNCFModificado: '19-11-2026',
        CodigoModificacion: '4',
      }),
  ],
  [
    'gift certificates on a consumer invoice',
    '32',
    (d) => (d.Encabezado.IdDoc.TablaFormasPago = { FormaDePago: [{ FormaPago: '5', MontoPago: '1180.00' }] }),
  ],
  ['an emission date today late in the evening UTC', '31', (d) => (d.Encabezado.Emisor.FechaEmision = '21-11-2026')],
  [
    'a payment limit on a credit sale',
    '31',
    (d) => Object.assign(d.Encabezado.IdDoc, { TipoPago: '2', FechaLimitePago: '21-12-2026' }),
  ],
];

describe('fiscal rules: the edges that must pass', () => {
  for (const [name, type, change] of passing) {
    it(`accepts ${name}`, () => {
      assert.deepEqual(checkFiscalRules(documentOf(type, change), { now }), []);
    });
  }
});

describe('fiscal rules on hostile shapes', () => {
  it('never throws on values of the wrong kind', () => {
    const weird = {
      Encabezado: { IdDoc: { TipoeCF: ['31'], eNCF: 7 }, Emisor: 'x', Comprador: null },
      DetallesItems: { Item: 'nope' },
      FechaHoraFirma: {},
    };
    assert.doesNotThrow(() => checkFiscalRules(weird, { now }));
  });
});
