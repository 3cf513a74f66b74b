// One message catalogue, Spanish first with English beside each message; the language a person chose is kept in
// localStorage (a preference, not a secret). `{name}` in a message is filled from the call's values.
import { createContext, type ComponentChildren } from 'preact';
import { useContext, useState } from 'preact/hooks';
import { messages, type MessageKey } from './messages.js';

export type Lang = 'es' | 'en';
const langName = 'ecf-console.lang';

export type Translate = (key: MessageKey, values?: Record<string, string | number>) => string;

interface I18n {
  lang: Lang;
  t: Translate;
  setLang: (lang: Lang) => void;
}

function translator(lang: Lang): Translate {
  return (key, values) => {
    const [es, en] = (messages[key] as readonly [string, string] | undefined) ?? [key, key];
    const text = lang === 'en' ? en : es;
    return values === undefined
      ? text
      : text.replace(/\{(\w+)\}/g, (whole, name: string) => String(values[name] ?? whole));
  };
}

const I18nContext = createContext<I18n>({ lang: 'es', t: translator('es'), setLang: () => undefined });

export function I18nProvider({ children }: { children: ComponentChildren }) {
  const [lang, setLangState] = useState<Lang>(() => (window.localStorage.getItem(langName) === 'en' ? 'en' : 'es'));
  const setLang = (next: Lang) => {
    window.localStorage.setItem(langName, next);
    setLangState(next);
  };
  document.documentElement.lang = lang;
  return <I18nContext.Provider value={{ lang, t: translator(lang), setLang }}>{children}</I18nContext.Provider>;
}

/** Whether the catalogue has `key`: for words named by the API's open-ended values (a job's kind, say). */
export function isMessageKey(key: string): key is MessageKey {
  return Object.hasOwn(messages, key);
}

export function useI18n(): I18n {
  return useContext(I18nContext);
}
