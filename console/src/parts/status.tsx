// A state as a word and a colour (the colour never alone: the word is always there). Each group is one of the
// API's state fields (a document's, a delivery's, a received e-CF's, its commercial response's, ...); its words are
// the messages `<group>.<value>`.
import { useI18n } from '../i18n.js';
import type { MessageKey } from '../messages.js';

export type StatusGroup =
  | 'status'
  | 'delivery'
  | 'receivedStatus'
  | 'commercial'
  | 'acecfDelivery'
  | 'range'
  | 'allocation'
  | 'annulment'
  | 'endpoint'
  | 'webhookDelivery'
  | 'job';

/** The tone of a value, in every group unless the group names its own. */
const tone: Record<string, string> = {
  accepted: 'good',
  accepted_conditional: 'warn',
  rejected: 'bad',
  send_failed: 'bad',
  not_found: 'bad',
  delivered: 'good',
  not_received: 'bad',
  failed: 'bad',
  received: 'good',
  approved: 'good',
  exhausted: 'bad',
  succeeded: 'good',
  active: 'good',
  enabled: 'good',
  disabled: 'bad',
  expired: 'bad',
  open: 'bad',
};
const toneIn: Partial<Record<StatusGroup, Record<string, string>>> = {
  range: { exhausted: 'warn' },
  allocation: { expired: 'neutral' },
  webhookDelivery: { failed: 'warn', exhausted: 'bad' },
};

export function Status({ value, group = 'status' }: { value: string; group?: StatusGroup }) {
  const { t } = useI18n();
  const key = `${group}.${value}` as MessageKey;
  return <span class={`status status-${toneIn[group]?.[value] ?? tone[value] ?? 'neutral'}`}>{t(key)}</span>;
}
