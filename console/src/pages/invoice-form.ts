// The guided form's state and the e-CF JSON it stands for: only what the person typed, in DGII's field names, with
// nothing computed (MontoItem and the Totales are the service's to compute). Each field's id and the JSON pointer of
// the e-CF field it fills go together, so a finding at a pointer is shown at its field.

export interface Line {
  name: string;
  /** IndicadorBienoServicio: 1 bien, 2 servicio. */
  kind: '1' | '2';
  quantity: string;
  price: string;
  /** IndicadorFacturacion: 1 ITBIS 18 %, 2 ITBIS 16 %, 3 ITBIS 0 %, 4 exento. */
  billing: '1' | '2' | '3' | '4';
}

export interface InvoiceForm {
  type: '31' | '32' | '34';
  income: string;
  payment: '1' | '2' | '3';
  /** IndicadorMontoGravado 1: the prices include ITBIS. */
  pricesIncludeItbis: boolean;
  rnc: string;
  name: string;
  email: string;
  /** A nota de crédito's InformacionReferencia and IndicadorNotaCredito. */
  reference: { encf: string; date: string; code: string; reason: string; creditIndicator: string };
  lines: Line[];
}

export const blankLine = (): Line => ({ name: '', kind: '1', quantity: '1', price: '', billing: '1' });

const given = (value: string): string | undefined => (value.trim() === '' ? undefined : value.trim());

/** The entries whose value was given, as an object (an e-CF leaves out what it does not say). */
const present = (
  entries: readonly (readonly [string, string | number | undefined])[],
): Record<string, string | number> =>
  Object.fromEntries(entries.filter((entry): entry is readonly [string, string | number] => entry[1] !== undefined));

/** The e-CF JSON of the form, for the preview and the creation (POST /api/v1/documentos). */
export function bodyOf(form: InvoiceForm): Record<string, unknown> {
  const comprador = present([
    ['RNCComprador', given(form.rnc)],
    ['RazonSocialComprador', given(form.name)],
    ['CorreoComprador', given(form.email)],
  ]);
  const idDoc: Record<string, unknown> = {
    TipoeCF: form.type,
    ...(form.type === '34' ? { IndicadorNotaCredito: Number(form.reference.creditIndicator) } : {}),
    IndicadorMontoGravado: form.pricesIncludeItbis ? 1 : 0,
    TipoIngresos: form.income,
    TipoPago: Number(form.payment),
  };
  const body: Record<string, unknown> = {
    Encabezado: { IdDoc: idDoc, ...(Object.keys(comprador).length > 0 ? { Comprador: comprador } : {}) },
    DetallesItems: {
      Item: form.lines.map((line, index) => ({
        NumeroLinea: index + 1,
        IndicadorFacturacion: Number(line.billing),
        NombreItem: line.name,
        IndicadorBienoServicio: Number(line.kind),
        CantidadItem: line.quantity.trim(),
        PrecioUnitarioItem: line.price.trim(),
      })),
    },
  };
  if (form.type === '34')
    body['InformacionReferencia'] = present([
      ['NCFModificado', given(form.reference.encf)],
      ['FechaNCFModificado', given(form.reference.date)],
      ['CodigoModificacion', Number(form.reference.code)],
      ['RazonModificacion', given(form.reference.reason)],
    ]);
  return body;
}

const fields: Record<string, string> = {
  '/Encabezado/IdDoc/TipoeCF': 'type',
  '/Encabezado/IdDoc/TipoIngresos': 'income',
  '/Encabezado/IdDoc/TipoPago': 'payment',
  '/Encabezado/IdDoc/IndicadorNotaCredito': 'ref-indicator',
  '/Encabezado/Comprador/RNCComprador': 'buyer-rnc',
  '/Encabezado/Comprador/RazonSocialComprador': 'buyer-name',
  '/Encabezado/Comprador/CorreoComprador': 'buyer-email',
  '/InformacionReferencia/NCFModificado': 'ref-encf',
  '/InformacionReferencia/FechaNCFModificado': 'ref-date',
  '/InformacionReferencia/CodigoModificacion': 'ref-code',
  '/InformacionReferencia/RazonModificacion': 'ref-reason',
};
const lineFields: Record<string, string> = {
  NombreItem: 'name',
  IndicadorBienoServicio: 'kind',
  CantidadItem: 'quantity',
  PrecioUnitarioItem: 'price',
  MontoItem: 'price',
  IndicadorFacturacion: 'billing',
};

/** The id of the form field a finding's JSON pointer names, or undefined when no field of the form fills it. */
export function fieldOfPointer(pointer: string): string | undefined {
  const direct = fields[pointer];
  if (direct !== undefined) return direct;
  const line = /^\/DetallesItems\/Item\/(\d+)\/(\w+)$/.exec(pointer);
  const field = line === null ? undefined : lineFields[line[2] ?? ''];
  return line === null || field === undefined ? undefined : `line-${line[1] ?? ''}-${field}`;
}
