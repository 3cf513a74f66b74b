// The document the service builds from what a client sent: the client's DGII-shaped JSON, completed with what the
// service knows — the Emisor from the company profile, today's FechaEmision, Version 1.0, and Totales and each
// line's MontoItem computed from the lines where the client left them out (SPEC §4.2). The client's own values always win; what the
// service fills in is exactly what the client did not send.
import { formatDgiiDate } from '../../fiscal/dates.js';
import { error, type Finding } from '../../fiscal/finding.js';
import { computeTotals, type LineaCalculada } from '../../fiscal/totals/index.js';

type Json = Record<string, unknown>;

export interface IssuerProfile {
  rnc: string;
  legalName: string;
  tradeName: string | null;
  address: string | null;
  municipality: string | null;
  province: string | null;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Fills `target` with `defaults` where it has no value. */
function withDefaults(target: Json, defaults: Json): Json {
  const out: Json = { ...target };
  for (const [key, value] of Object.entries(defaults)) {
    if (value !== null && value !== undefined && (out[key] === undefined || out[key] === null || out[key] === ''))
      out[key] = value;
  }
  return out;
}

export type Composed =
  | {
      ok: true;
      document: Json;
      /** Each line's amounts as the totals were computed from them (lines that cannot be read are left out). */
      lineas: LineaCalculada[];
    }
  | { ok: false; findings: Finding[] };

/** The groups this composer completes must be objects when sent: anything else is refused, never replaced. */
function misshapenGroups(body: Json): Finding[] {
  const sent = (value: unknown) => value !== undefined && value !== null && value !== '';
  const encabezado = body['Encabezado'];
  if (sent(encabezado) && !isObject(encabezado))
    return [error('/Encabezado', 'wrong_type', 'Encabezado is a group: expected an object.')];
  if (!isObject(encabezado)) return [];
  return ['Emisor', 'Totales', 'OtraMoneda']
    .filter((name) => sent(encabezado[name]) && !isObject(encabezado[name]))
    .map((name) => error(`/Encabezado/${name}`, 'wrong_type', `${name} is a group: expected an object.`));
}

export function composeDocument(body: unknown, issuer: IssuerProfile, now: Date): Composed {
  if (!isObject(body))
    return {
      ok: false,
      findings: [error('', 'not_an_object', 'The e-CF is a JSON object with Encabezado, DetallesItems, ...')],
    };
  const misshapen = misshapenGroups(body);
  if (misshapen.length > 0) return { ok: false, findings: misshapen };
  const encabezado = isObject(body['Encabezado']) ? body['Encabezado'] : {};
  const emisor = isObject(encabezado['Emisor']) ? encabezado['Emisor'] : {};
  const sentRnc = emisor['RNCEmisor'];
  const sent = typeof sentRnc === 'string' || typeof sentRnc === 'number' ? String(sentRnc) : undefined;
  if (sent !== undefined && sent !== '' && sent !== issuer.rnc) {
    return {
      ok: false,
      findings: [
        error(
          '/Encabezado/Emisor/RNCEmisor',
          'not_the_issuer',
          `RNCEmisor ${sent} is not the RNC of the company this key belongs to (${issuer.rnc}).`,
        ),
      ],
    };
  }
  const completedEmisor = withDefaults(emisor, {
    RNCEmisor: issuer.rnc,
    RazonSocialEmisor: issuer.legalName,
    NombreComercial: issuer.tradeName,
    DireccionEmisor: issuer.address,
    Municipio: issuer.municipality,
    Provincia: issuer.province,
    FechaEmision: formatDgiiDate(now),
  });
  const document: Json = {
    ...body,
    Encabezado: withDefaults({ ...encabezado, Emisor: completedEmisor }, { Version: '1.0' }),
  };
  return { ok: true, ...withTotals(document) };
}

/** Totales (and OtraMoneda) computed from the lines fill whatever the client did not send of them. */
function withTotals(document: Json): { document: Json; lineas: LineaCalculada[] } {
  const encabezado = document['Encabezado'] as Json;
  const sentTotales = isObject(encabezado['Totales']) ? encabezado['Totales'] : undefined;
  const sentOtraMoneda = isObject(encabezado['OtraMoneda']) ? encabezado['OtraMoneda'] : undefined;
  // Lines that cannot be read are reported by validation, with their pointers; nothing is computed from them.
  const computed = computeTotals(document);
  const lineas = computed.lineas;
  if (computed.findings.some((finding) => finding.severity === 'error')) return { document, lineas };
  const computedTotales: Json = { ...computed.totales };
  const computedOtraMoneda: Json | undefined =
    computed.otraMoneda === undefined ? undefined : { ...computed.otraMoneda };
  const totales = sentTotales === undefined ? computedTotales : withDefaults(sentTotales, computedTotales);
  const detalles = document['DetallesItems'];
  const otraMoneda =
    computedOtraMoneda === undefined
      ? sentOtraMoneda
      : sentOtraMoneda === undefined
        ? computedOtraMoneda
        : withDefaults(sentOtraMoneda, computedOtraMoneda);
  return {
    document: {
      ...document,
      Encabezado: { ...encabezado, Totales: totales, ...(otraMoneda === undefined ? {} : { OtraMoneda: otraMoneda }) },
      ...(isObject(detalles) && Array.isArray(detalles['Item'])
        ? { DetallesItems: { ...detalles, Item: withLineAmounts(detalles['Item'], lineas) } }
        : {}),
    },
    lineas,
  };
}

/**
 * Each line's MontoItem where the client left it out: CantidadItem × PrecioUnitarioItem − DescuentoMonto +
 * RecargoMonto as the totals computed it, so that a person typing an invoice (the console's form) states quantity
 * and price and the service does the arithmetic, as it does for Totales. A MontoItem sent stands as written.
 */
function withLineAmounts(items: unknown[], lineas: readonly LineaCalculada[]): unknown[] {
  const computed = new Map(lineas.map((linea) => [linea.NumeroLinea, linea.MontoItem]));
  return items.map((item) => {
    if (!isObject(item)) return item;
    const amount = computed.get(String(item['NumeroLinea']));
    return amount === undefined ? item : withDefaults(item, { MontoItem: amount });
  });
}
