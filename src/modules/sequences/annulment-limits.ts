// What one ANECF cannot carry (fiscal/responses/anecf.ts, anecfLimits), refused before anything is held: a line per
// type, so at most 10 types; at most 10,000 ranges of a type; at most 9,999,999,999 numbers in all. Nothing else
// limits a request: DGII voids any span its format carries.
import { anecfLimits } from '../../fiscal/responses/anecf.js';
import type { FieldError } from '../../platform/result.js';
import type { RequestAnnulment } from './annulments.schema.js';
import { sequenceOf } from './numbers.js';

const count = (n: number) => n.toLocaleString('en-US');

export function anecfCapacityErrors(body: RequestAnnulment): FieldError[] {
  const errors: FieldError[] = [];
  const rangesOfType = new Map<string, number>();
  let numbers = 0;
  for (const [index, span] of body.ranges.entries()) {
    const ranges = (rangesOfType.get(span.ecfType) ?? 0) + 1;
    rangesOfType.set(span.ecfType, ranges);
    if (ranges === anecfLimits.rangesPerLine + 1)
      errors.push({
        pointer: `/ranges/${String(index)}`,
        in: 'body',
        code: 'too_many_ranges',
        detail: `An ANECF carries at most ${count(anecfLimits.rangesPerLine)} ranges of a type (Secuencias); this is range ${count(ranges)} of type ${span.ecfType}: join adjacent ranges, or annul in several requests.`,
      });
    // A span that is not an ascending one of its type is refused by itself later; it counts no numbers here.
    const size = sequenceOf(span.to) - sequenceOf(span.from) + 1;
    if (size > 0) numbers += size;
  }
  if (rangesOfType.size > anecfLimits.lines)
    errors.push({
      pointer: '/ranges',
      in: 'body',
      code: 'too_many_types',
      detail: `An ANECF has a line per type and at most ${String(anecfLimits.lines)} lines; these ranges are of ${String(rangesOfType.size)} types.`,
    });
  if (numbers > anecfLimits.numbers)
    errors.push({
      pointer: '/ranges',
      in: 'body',
      code: 'too_many_numbers',
      detail: `An ANECF annuls at most ${count(anecfLimits.numbers)} numbers (CantidadeNCFAnulados has ten digits); these ranges hold ${count(numbers)}: annul in several requests.`,
    });
  return errors;
}
