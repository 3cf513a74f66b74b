// Cross-field fiscal rules beyond what a schema can say. Structure, types and per-type obligations come from
// the model; totals from totals/; these are the rules that relate fields to each other, to the type and to time.
import type { Finding } from '../finding.js';
import type { JsonObject } from './document-view.js';
import { itemRules, paymentRules } from './item-rules.js';
import { partyRules } from './party-rules.js';
import { referenceRules } from './reference-rules.js';
import { dateRules, encfRules } from './sequence-and-date-rules.js';

export function checkFiscalRules(document: JsonObject, context: { now: Date }): Finding[] {
  return [
    ...encfRules(document),
    ...partyRules(document),
    ...referenceRules(document),
    ...itemRules(document),
    ...paymentRules(document),
    ...dateRules(document, context.now),
  ];
}
