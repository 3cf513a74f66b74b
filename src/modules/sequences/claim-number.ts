// A number signed outside the service (a device's offline block, or an integrator signing its own XML) claimed when
// the signed document is handed in: it must be the company's, authorised, unexpired and unused, and claiming it
// keeps the rule that no number is given twice and every gap is recorded. A number in a block is recorded as that
// block's use; outside a block only the range's next number can be claimed (it is then taken, as takeNumber would).
import type { FiscalEnvironment } from '../../config.js';
import { parseEncf } from '../../fiscal/encf.js';
import type { Clock } from '../../platform/clock.js';
import type { Trx } from '../../platform/db/transact.js';
import { fail, ok, type Result } from '../../platform/result.js';
import type { AllocationsService } from './allocations.service.js';
import type { IssuedDocuments } from './issued-documents.js';
import { encfOf, isoToday } from './numbers.js';
import type { SequencesTables } from './tables.js';

export interface ClaimedNumber {
  rangeId: string;
  allocationId: string | undefined;
}

export async function claimNumber(
  trx: Trx<SequencesTables>,
  deps: { clock: Clock; environment: FiscalEnvironment; allocations: AllocationsService; issued: IssuedDocuments },
  companyId: string,
  encf: string,
  documentId: string,
): Promise<Result<ClaimedNumber>> {
  const { environment } = deps;
  const parsed = parseEncf(encf);
  if (parsed === undefined) return fail('encf_not_authorised', `${encf} is not an e-NCF.`);
  const { ecfType, sequence } = parsed;
  const range = await trx
    .selectFrom('sequence_ranges')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .where('ecf_type', '=', ecfType)
    .where('first_number', '<=', sequence)
    .where('last_number', '>=', sequence)
    .forUpdate()
    .executeTakeFirst();
  if (range === undefined)
    return fail(
      'encf_not_authorised',
      `${encf} is not in any range registered for e-CF ${ecfType}: register the range DGII authorised first.`,
    );
  if (range.expires_on !== null && range.expires_on < isoToday(deps.clock))
    return fail('range_expired', `The range of ${encf} expired on ${range.expires_on}.`);

  const used = await deps.issued.numbered(trx, companyId, environment, encf);
  const burned = await trx
    .selectFrom('sequence_burned')
    .select('cause')
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .where('encf', '=', encf)
    .executeTakeFirst();
  if (used !== undefined || burned !== undefined) {
    return fail(
      'encf_already_used',
      `${encf} has already been used${burned === undefined ? ` (document ${used?.id ?? ''})` : ` (burned: ${burned.cause})`}.`,
    );
  }

  // A number of a block: the block records the use (locked, so a cancel running now cannot burn it meanwhile).
  const fromBlock = await deps.allocations.recordUse(trx, companyId, encf, documentId);
  if (!fromBlock.ok) return fromBlock;
  if (fromBlock.value !== undefined) return ok({ rangeId: range.id, allocationId: fromBlock.value });
  if (sequence < range.next_number)
    return fail('encf_already_used', `${encf} has already been handed out by the service.`);
  if (sequence > range.next_number) {
    return fail(
      'encf_not_next',
      `${encf} is ahead of the range's next number ${encfOf(ecfType, range.next_number)}: reserve a block (asignaciones) for numbers signed outside the service, or use the next number.`,
    );
  }
  await trx
    .updateTable('sequence_ranges')
    .set({ next_number: sequence + 1 })
    .where('id', '=', range.id)
    .where('next_number', '=', sequence)
    .execute();
  return ok({ rangeId: range.id, allocationId: undefined });
}
