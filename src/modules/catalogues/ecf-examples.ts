// One example creation body per e-CF type, served in its JSON Schema: the least an integrator sends (the Emisor
// comes from the company profile, Totales from the lines). Fictitious parties; RNCs with valid check digits.
import type { EcfType } from '../../fiscal/model/ecf-model-types.js';
import { rncCheckDigit } from '../../fiscal/taxpayer-id.js';

type Json = Record<string, unknown>;

const rnc = (firstEight: string) => firstEight + String(rncCheckDigit(firstEight));

const comprador: Json = { RNCComprador: rnc('13012345'), RazonSocialComprador: 'Distribuidora Ejemplo, S.R.L.' };

function line(indicador: number, name: string, servicio: boolean, extra: Json = {}): Json {
  return {
    NumeroLinea: 1,
    IndicadorFacturacion: indicador,
    ...extra,
    NombreItem: name,
    IndicadorBienoServicio: servicio ? 2 : 1,
    CantidadItem: 1,
    PrecioUnitarioItem: '1000.00',
    MontoItem: '1000.00',
  };
}

function body(type: EcfType, idDoc: Json, parties: Json, item: Json, rest: Json = {}): Json {
  return { Encabezado: { IdDoc: { TipoeCF: type, ...idDoc }, ...parties }, DetallesItems: { Item: [item] }, ...rest };
}

const reference = (reason: string): Json => ({
  InformacionReferencia: {
    NCFModificado: 'E310000000007',
    FechaNCFModificado: '01-11-2026',
    CodigoModificacion: 3,
    RazonModificacion: reason,
  },
});

const taxed = line(1, 'Servicio de consultoría', true);
const exempt = (name: string, servicio: boolean, extra: Json = {}) => line(4, name, servicio, extra);

const examples: Readonly<Record<EcfType, Json>> = {
  '31': body('31', { IndicadorMontoGravado: 0, TipoIngresos: '01', TipoPago: 1 }, { Comprador: comprador }, taxed),
  '32': body(
    '32',
    { IndicadorMontoGravado: 0, TipoIngresos: '01', TipoPago: 1 },
    { Comprador: { RazonSocialComprador: 'Consumidor final' } },
    taxed,
  ),
  '33': body(
    '33',
    { IndicadorMontoGravado: 0, TipoIngresos: '01', TipoPago: 2, FechaLimitePago: '15-12-2026' },
    { Comprador: comprador },
    taxed,
    reference('Corrección de precio pactado'),
  ),
  '34': body(
    '34',
    { IndicadorNotaCredito: 0, IndicadorMontoGravado: 0, TipoIngresos: '01', TipoPago: 1 },
    { Comprador: comprador },
    taxed,
    reference('Devolución de mercancía'),
  ),
  '41': body(
    '41',
    { IndicadorMontoGravado: 0, TipoPago: 1 },
    { Comprador: { RNCComprador: rnc('40212345'), RazonSocialComprador: 'José Martínez' } },
    line(1, 'Servicio de plomería', true, {
      Retencion: { IndicadorAgenteRetencionoPercepcion: 1, MontoITBISRetenido: '180.00', MontoISRRetenido: '100.00' },
    }),
  ),
  '43': body('43', {}, {}, exempt('Pasaje y peaje', true)),
  '44': body(
    '44',
    { TipoIngresos: '01', TipoPago: 1 },
    { Comprador: { RNCComprador: rnc('13055555'), RazonSocialComprador: 'Zona Franca Ejemplo, S.A.' } },
    exempt('Tornillería industrial', false),
  ),
  '45': body(
    '45',
    { IndicadorMontoGravado: 0, TipoIngresos: '01', TipoPago: 1 },
    { Comprador: { RNCComprador: rnc('40100001'), RazonSocialComprador: 'Ministerio de Ejemplo' } },
    taxed,
  ),
  '46': body(
    '46',
    { TipoIngresos: '01', TipoPago: 1 },
    {
      Comprador: {
        IdentificadorExtranjero: 'US-EIN-12-3456789',
        RazonSocialComprador: 'Caribbean Imports LLC',
        PaisComprador: 'Estados Unidos',
      },
    },
    line(3, 'Cacao en grano, quintal', false),
  ),
  '47': body(
    '47',
    {},
    { Comprador: { IdentificadorExtranjero: 'DE-123456789', RazonSocialComprador: 'Software GmbH' } },
    exempt('Licencia anual de software', true, {
      Retencion: { IndicadorAgenteRetencionoPercepcion: 1, MontoISRRetenido: '270.00' },
    }),
  ),
};

export function ecfExample(type: EcfType): Json {
  return structuredClone(examples[type]);
}
