// Completes a client's Totales (or OtraMoneda) with computed values and checks what the client sent.
// What the client sent is kept — it is what will be signed — and each given amount is compared with the amount
// computed from the lines: beyond the global tolerance (Informe Técnico §12: as many units as the e-CF has
// lines) it is a warning, since DGII would answer "Aceptado Condicional", not reject.
import Big from 'big.js';
import { warning, type Finding } from '../finding.js';
import { amountRule, formatAmount, readDecimal, signedAmountRule, sum, zero } from './decimal.js';
import { asList, leafText } from './json-leaves.js';

export interface BlockKeys {
  readonly gravadoTotal: string;
  readonly gravado: readonly [string, string, string];
  readonly exento: string;
  readonly totalItbis: string;
  readonly itbis: readonly [string, string, string];
  readonly taxTotal: string;
  readonly taxContainer: string;
  readonly taxEntry: string;
  readonly taxCode: string;
  readonly taxRate: string;
  readonly taxAmounts: readonly [string, string, string];
  readonly total: string;
  /** Other amounts taken as sent or as computed, without a sum behind them (no facturable, retentions…). */
  readonly plain: readonly string[];
  /** The client's own figures, with nothing to compute them from (SaldoAnterior, MontoAvancePago). */
  readonly passthrough: readonly string[];
  /** Amounts that may be negative (Formato e-CF fields 111–115). */
  readonly signed: ReadonlySet<string>;
}

type Block = Record<string, unknown>;
type TaxEntry = Record<string, string>;

export interface MergeContext {
  readonly pointer: string;
  readonly tolerance: Big;
  readonly findings: Finding[];
}

/**
 * `computed` sums the lines' MontoItem as sent (what the document will say); `expected` sums them as DGII
 * recomputes them, CantidadItem × PrecioUnitarioItem − DescuentoMonto + RecargoMonto (Informe Técnico §12's
 * example compares the header against that "monto según formato").
 */
export function mergeBlock(
  given: Block | undefined,
  computed: Block,
  expected: Block,
  keys: BlockKeys,
  context: MergeContext,
): Block {
  const { findings, pointer } = context;
  const givenAmount = (key: string) =>
    given === undefined
      ? undefined
      : readDecimal(given[key], `${pointer}/${key}`, keys.signed.has(key) ? signedAmountRule : amountRule, findings);
  const expectedAmount = (key: string) => (typeof expected[key] === 'string' ? new Big(expected[key]) : undefined);
  const merged: Block = { ...computed };
  const take = (key: string, derived?: Big) => {
    const sent = givenAmount(key);
    if (sent !== undefined) {
      compare(`${pointer}/${key}`, sent, expectedAmount(key) ?? zero, context);
      merged[key] = formatAmount(sent);
    } else if (derived !== undefined) {
      merged[key] = formatAmount(derived);
    }
    return merged[key] === undefined ? undefined : new Big(merged[key] as string);
  };
  const total = (values: readonly (Big | undefined)[]) => {
    const known = values.filter((value) => value !== undefined);
    return known.length === 0 ? undefined : sum(known);
  };

  const gravado = keys.gravado.map((key) => take(key));
  const gravadoTotal = take(keys.gravadoTotal, total(gravado));
  const exento = take(keys.exento);
  const itbis = keys.itbis.map((key) => take(key));
  const totalItbis = take(keys.totalItbis, total(itbis));
  const taxes = mergeTaxes(given, computed, expected, keys, context);
  if (taxes.length > 0) merged[keys.taxContainer] = { [keys.taxEntry]: taxes };
  const taxSum = total(
    taxes.flatMap((entry) => keys.taxAmounts.flatMap((key) => (entry[key] === undefined ? [] : [new Big(entry[key])]))),
  );
  const taxTotal = take(keys.taxTotal, taxSum?.gt(0) === true ? taxSum : undefined);
  take(keys.total, total([gravadoTotal, exento, totalItbis, taxTotal]) ?? zero);
  for (const key of keys.plain) take(key);
  for (const key of keys.passthrough) {
    const sent = givenAmount(key);
    if (sent !== undefined) merged[key] = formatAmount(sent);
  }
  return merged;
}

function mergeTaxes(
  given: Block | undefined,
  computed: Block,
  expected: Block,
  keys: BlockKeys,
  context: MergeContext,
): TaxEntry[] {
  const entries = (block: Block | undefined) => {
    const container = block?.[keys.taxContainer];
    const list = typeof container === 'object' && container !== null ? (container as Block)[keys.taxEntry] : undefined;
    return asList(list as Block | readonly Block[] | undefined);
  };
  const computedEntries = entries(computed) as readonly TaxEntry[];
  const expectedEntries = entries(expected) as readonly TaxEntry[];
  const givenEntries: readonly Block[] = entries(given);
  const merged: TaxEntry[] = computedEntries.map((entry) => ({ ...entry }));
  givenEntries.forEach((entry, index) => {
    const code = leafText(entry[keys.taxCode]);
    if (code === undefined) return;
    const at = `${context.pointer}/${keys.taxContainer}/${keys.taxEntry}/${index}`;
    let target = merged.find((candidate) => candidate[keys.taxCode] === code);
    const expectedEntry = expectedEntries.find((candidate) => candidate[keys.taxCode] === code);
    if (target === undefined) {
      target = { [keys.taxCode]: code };
      merged.push(target);
    }
    const rate = leafText(entry[keys.taxRate]);
    if (rate !== undefined) target[keys.taxRate] = rate;
    for (const key of keys.taxAmounts) {
      const sent = readDecimal(entry[key], `${at}/${key}`, amountRule, context.findings);
      if (sent === undefined) continue;
      const computedValue = expectedEntry?.[key];
      compare(`${at}/${key}`, sent, computedValue === undefined ? zero : new Big(computedValue), context);
      target[key] = formatAmount(sent);
    }
  });
  return merged.sort((a, b) => (a[keys.taxCode] ?? '').localeCompare(b[keys.taxCode] ?? ''));
}

export function compare(pointer: string, given: Big, expected: Big, context: MergeContext): void {
  const difference = given.minus(expected).abs();
  if (difference.gt(context.tolerance)) {
    context.findings.push(
      warning(
        pointer,
        'totals_outside_tolerance',
        `Given ${formatAmount(given)}, computed ${formatAmount(expected)}: the difference ${formatAmount(difference)} exceeds the tolerance of ${formatAmount(context.tolerance)} (Informe Técnico §12); DGII would answer Aceptado Condicional.`,
      ),
    );
  }
}
