// Converts an XSD simple type of DGII's e-CF schemas into our model's data type (scripts/generate-ecf-model.ts).
import type { DataType } from '../src/fiscal/model/ecf-model-types.js';

export interface XsdSimpleType {
  name: string;
  base: string;
  facets: { facet: string; value: string; label?: string }[];
}

export interface ConvertedType {
  dataType: DataType;
  catalogue?: { name: string; entries: { code: string; label: string }[] };
}

// Our names for DGII's enumerations (the format document's tables where it has one: Tabla I impuestos adicionales,
// Tabla II monedas, Tabla III provincias/municipios, Tabla IV unidades de medida).
const catalogueNames: Readonly<Record<string, string>> = {
  versionType: 'versiones',
  TipoeCFType: 'tiposECF',
  IndicadorEnvioDiferidoType: 'indicadoresEnvioDiferido',
  IndicadorMontoGravadoType: 'indicadoresMontoGravado',
  IndicadorServicioTodoIncluidoType: 'indicadoresServicioTodoIncluido',
  TipoIngresosValidationType: 'tiposIngresos',
  TipoPagoType: 'tiposPago',
  FormaPagoType: 'formasPago',
  TipoCuentaPagoType: 'tiposCuentaPago',
  IndicadorFacturacionType: 'indicadoresFacturacion',
  IndicadorBienoServicioType: 'indicadoresBienoServicio',
  TipoDescuentoRecargoType: 'tiposDescuentoRecargo',
  TipoAjusteType: 'tiposAjuste',
  IndicadorFacturacionDRType: 'indicadoresFacturacionDescuentoRecargo',
  CodigoModificacionType: 'codigosModificacion',
  TipoMonedaType: 'monedas',
  IndicadorNorma1007Type: 'indicadoresNorma1007',
  IndicadorAgenteRetencionoPercepcionType: 'indicadoresAgenteRetencionoPercepcion',
  CodificacionTipoImpuestosType: 'codigosImpuestoAdicional',
  UnidadMedidaType: 'unidadesMedida',
  TipoAfiliacionType: 'tiposAfiliacion',
  LiquidacionType: 'tiposLiquidacion',
  ViaTransporteType: 'viasTransporte',
};

/** One XSD type holds provinces and municipalities (Tabla III); a province code ends in 0000. */
export function catalogueNameFor(elementName: string, typeName: string): string {
  if (typeName === 'ProvinciaMunicipioType') return elementName.startsWith('Provincia') ? 'provincias' : 'municipios';
  const name = catalogueNames[typeName];
  if (name === undefined) return typeName.replace(/(Validation)?Type$/, '').replace(/^./, (c) => c.toLowerCase());
  return name;
}

function isProvince(code: string): boolean {
  return code.endsWith('0000');
}

/**
 * XSD regular expressions are implicitly anchored and their \w, \d, \s, \D differ from JavaScript's
 * (XML Schema Part 2, Appendix F): \w is every character outside the Unicode categories P, Z and C.
 */
export function xsdPatternToJs(pattern: string): string {
  // e-CF-33/34 Alfa20Type wraps its pattern in ^...$, which XSD reads as literal characters (dgii/README.md,
  // defect 3); the intent is the anchored pattern.
  const source = pattern.replace(/^\^/, '').replace(/\$$/, '');
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i] ?? '';
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      i++;
      const inside: Record<string, string> = { w: '\\p{L}\\p{M}\\p{N}\\p{S}', d: '\\p{Nd}', s: ' \\t\\n\\r' };
      if (next in inside) out += inClass ? (inside[next] ?? '') : `[${inside[next] ?? ''}]`;
      else if (next === 'D') out += inClass ? '' : '\\P{Nd}';
      else if (next === 'W') out += inClass ? '\\p{P}\\p{Z}\\p{C}' : '[\\p{P}\\p{Z}\\p{C}]';
      else if (next === '-' && !inClass) out += '-';
      else out += `\\${next}`;
      if (next === 'D' && inClass) throw new Error(`unsupported \\D inside a class: ${pattern}`);
      continue;
    }
    if (c === '[') inClass = true;
    if (c === ']') inClass = false;
    out += c;
  }
  const anchored = `^(?:${out})$`;
  new RegExp(anchored, 'u'); // throws if the translation is not a valid JavaScript pattern
  return anchored;
}

function facet(type: XsdSimpleType, name: string): string | undefined {
  return type.facets.find((f) => f.facet === name)?.value;
}
function numberFacet(type: XsdSimpleType, name: string): number | undefined {
  const value = facet(type, name);
  return value === undefined ? undefined : Number(value);
}
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

export function toDataType(type: XsdSimpleType, catalogueName: string): ConvertedType {
  const enumeration = type.facets.filter((f) => f.facet === 'enumeration');
  if (enumeration.length > 0) {
    let entries = enumeration.map((f) => ({ code: f.value, label: f.label ?? '' }));
    if (catalogueName === 'provincias') entries = entries.filter((e) => isProvince(e.code));
    if (catalogueName === 'municipios') entries = entries.filter((e) => !isProvince(e.code));
    return { dataType: { kind: 'enumeration', catalogue: catalogueName }, catalogue: { name: catalogueName, entries } };
  }
  const rawPattern = facet(type, 'pattern');
  const pattern = rawPattern === undefined ? undefined : xsdPatternToJs(rawPattern);
  if (type.base === 'xs:string') {
    // Formato e-CF: "Fecha válida dd-mm-aaaa"; FechaHoraFirma "dd-mm-aaaa hh:mm:ss".
    if (rawPattern?.startsWith('(3[01]|[12][0-9]|0') === true) {
      return { dataType: rawPattern.includes(' ') ? { kind: 'timestamp' } : { kind: 'date' } };
    }
    return {
      dataType: defined({
        kind: 'text',
        minLength: numberFacet(type, 'minLength'),
        maxLength: numberFacet(type, 'maxLength'),
        pattern,
      }),
    };
  }
  const range = {
    minInclusive: facet(type, 'minInclusive'),
    minExclusive: facet(type, 'minExclusive'),
    maxInclusive: facet(type, 'maxInclusive'),
  };
  if (type.base === 'xs:decimal') {
    return {
      dataType: defined({
        kind: 'decimal',
        totalDigits: numberFacet(type, 'totalDigits'),
        fractionDigits: numberFacet(type, 'fractionDigits'),
        ...range,
        pattern,
      }),
    };
  }
  if (type.base === 'xs:integer') {
    return { dataType: defined({ kind: 'integer', totalDigits: numberFacet(type, 'totalDigits'), ...range, pattern }) };
  }
  throw new Error(`${type.name}: unsupported base ${type.base}`);
}
