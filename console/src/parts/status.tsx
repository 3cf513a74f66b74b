// A document's state as a word and a colour (the colour never alone: the word is always there).
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
};

export function Status({ value, group = 'status' }: { value: string; group?: 'status' | 'delivery' }) {
  const { t } = useI18n();
  const key = `${group}.${value}` as MessageKey;
  return <span class={`status status-${tone[value] ?? 'neutral'}`}>{t(key)}</span>;
}
