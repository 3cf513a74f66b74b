// Step 4, "Pruebas Simulación e-CF": documents of the company's own operation, with the composition of the step-2
// set (research/certification.md §4: DGII counts per type the set's composition; §6.5). Each simulation case clones a
// set case of the same type — its lines, buyer, payment and totals, which agree with each other — and leaves to the
// normal issuing path what must be the company's own: the e-NCF and expiry (its CERT ranges), the Emisor (its
// profile, never the set's placeholder, which DGII refuses here) and today's FechaEmision. A note modifies the
// simulation invoice cloned from its set reference, once that is accepted (same buyer; same day, so
// IndicadorNotaCredito 0, Formato e-CF: within 30 days).
import { isRfceRouted } from './set-check.js';
import type { Json, SetCase } from './set-rows.js';

export interface SimulationCase {
  readonly caseKey: string;
  readonly ecfType: string;
  /** The body POST /documentos takes; a note's NCFModificado and FechaNCFModificado are set when it is issued. */
  readonly payload: Json;
  /** The simulation case a note modifies. */
  readonly dependsOn: string | null;
  /** A type 32 under DOP 250,000: DGII takes it as an RFCE. */
  readonly rfceRouted: boolean;
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const groupOf = (value: unknown, name: string): Json => (isObject(value) && isObject(value[name]) ? value[name] : {});

/** `today` and `paymentLimit` as dd-MM-yyyy (GMT-4): fiscal/ reads no clock. */
export function simulationCases(
  setCases: readonly SetCase[],
  dates: { today: string; paymentLimit: string },
): SimulationCase[] {
  const counts = new Map<string, number>();
  const keyOfEncf = new Map<string, string>();
  const ecfCases = setCases.filter((setCase) => setCase.kind === 'ECF');
  const keys = ecfCases.map((setCase) => {
    const type = setCase.ecfType ?? '';
    const n = (counts.get(type) ?? 0) + 1;
    counts.set(type, n);
    const key = `SIM-${type}-${String(n)}`;
    keyOfEncf.set(setCase.caseKey.slice(-13), key);
    return key;
  });
  return ecfCases.map((setCase, index) => {
    const encabezado = groupOf(setCase.payload, 'Encabezado');
    const { eNCF: _eNCF, FechaVencimientoSecuencia: _expiry, ...idDoc } = groupOf(encabezado, 'IdDoc');
    if (typeof idDoc['FechaLimitePago'] === 'string') idDoc['FechaLimitePago'] = dates.paymentLimit;
    if (typeof idDoc['IndicadorNotaCredito'] === 'string') idDoc['IndicadorNotaCredito'] = '0';
    const reference = groupOf(setCase.payload, 'InformacionReferencia');
    const referenced =
      typeof reference['NCFModificado'] === 'string' ? keyOfEncf.get(reference['NCFModificado']) : undefined;
    // The Emisor is left out: the company's profile and today's date fill it (documents compose-document.ts).
    const payload: Json = {
      ...setCase.payload,
      Encabezado: { ...encabezado, IdDoc: idDoc, Emisor: {} },
      ...(Object.keys(reference).length === 0
        ? {}
        : { InformacionReferencia: { ...reference, FechaNCFModificado: dates.today } }),
    };
    return {
      caseKey: keys[index] ?? '',
      ecfType: setCase.ecfType ?? '',
      payload,
      dependsOn: referenced ?? null,
      rfceRouted: isRfceRouted(setCase),
    };
  });
}
