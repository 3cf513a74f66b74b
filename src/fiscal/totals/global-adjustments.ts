// Global discounts and surcharges (section D, DescuentosORecargos): each belongs to one billing group
// (IndicadorFacturacionDescuentooRecargo 1–4) and moves that group's gravado or exento amount.
import type Big from 'big.js';
import { error, type Finding } from '../finding.js';
import { hundred, round2, sum } from './decimal.js';
import type { Adjustment, Line, TotalsDocument } from './totals-document.js';

export type AdjustmentGroup = 1 | 2 | 3 | 4;

export interface ResolvedAdjustment {
  readonly index: number;
  readonly kind: 'D' | 'R';
  readonly group: AdjustmentGroup;
  readonly amount: Big;
  readonly amountOtherCurrency?: Big;
  readonly norma1007: boolean;
  /** Σ MontoItem of the group: the base the amount is shared out on (Informe Técnico §15, footnote 36). */
  readonly groupTotal: Big;
}

export function groupTotal(lines: readonly Line[], group: number): Big {
  return sum(lines.filter((line) => line.indicator === group).map((line) => line.amount));
}

export function resolveAdjustments(document: TotalsDocument, findings: Finding[]): ResolvedAdjustment[] {
  const presentGroups = ([1, 2, 3, 4] as const).filter((group) =>
    document.lines.some((line) => line.indicator === group),
  );
  return document.adjustments.flatMap((adjustment) => {
    const group = adjustment.group ?? (presentGroups.length === 1 ? presentGroups[0] : undefined);
    if (group === undefined) {
      // Formato e-CF section D: an adjustment touching several groups is sent as one line per group.
      findings.push(
        error(
          pointerOf(adjustment, 'IndicadorFacturacionDescuentooRecargo'),
          'adjustment_group_required',
          'With lines in several billing groups, each global discount or surcharge names its IndicadorFacturacionDescuentooRecargo.',
        ),
      );
      return [];
    }
    if (adjustment.norma1007 && !document.pricesIncludeItbis) {
      // Informe Técnico §15 n. 38: with Norma 10-07, IndicadorMontoGravado is always 1.
      findings.push(
        error(
          pointerOf(adjustment, 'IndicadorNorma1007'),
          'norma1007_requires_itbis_included',
          'A Norma 10-07 discount needs IndicadorMontoGravado 1 (prices with ITBIS included).',
        ),
      );
    }
    const base = groupTotal(document.lines, group);
    const amount = adjustment.amount ?? round2(base.times(adjustment.percent ?? 0).div(hundred));
    return [
      {
        index: adjustment.index,
        kind: adjustment.kind,
        group,
        amount,
        amountOtherCurrency: adjustment.amountOtherCurrency,
        norma1007: adjustment.norma1007,
        groupTotal: base,
      },
    ];
  });
}

/** Σ surcharges − Σ discounts of a group, leaving out Norma 10-07 discounts (Formato e-CF n. 12). */
export function netAdjustment(
  adjustments: readonly ResolvedAdjustment[],
  group: AdjustmentGroup,
  pick: (adjustment: ResolvedAdjustment) => Big,
): Big {
  return sum(
    adjustments
      .filter((adjustment) => adjustment.group === group && !adjustment.norma1007)
      .map((adjustment) => (adjustment.kind === 'D' ? pick(adjustment).neg() : pick(adjustment))),
  );
}

function pointerOf(adjustment: Adjustment, field: string): string {
  return `/DescuentosORecargos/DescuentoORecargo/${adjustment.index}/${field}`;
}
