// A state as a word and a colour (the colour never alone: the word is always there): a document's, a delivery's, a
// received e-CF's, or its commercial response's.
import { useI18n } from '../i18n.js';
import type { MessageKey } from '../messages.js';

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
};

export type StatusGroup = 'status' | 'delivery' | 'receivedStatus' | 'commercial' | 'acecfDelivery';

export function Status({ value, group = 'status' }: { value: string; group?: StatusGroup }) {
  const { t } = useI18n();
  const key = `${group}.${value}` as MessageKey;
  return <span class={`status status-${tone[value] ?? 'neutral'}`}>{t(key)}</span>;
}
