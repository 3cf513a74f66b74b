// Every signed-in page's frame: the environment (TEST, CERT, PRODUCTION) in a band no one can miss, the company and
// the key's scopes, the pages the scopes open, the language and signing out.
import type { ComponentChildren } from 'preact';
import { useI18n } from '../i18n.js';
import type { MessageKey } from '../messages.js';
import { useLocation } from '../router.js';
import { useSession } from '../session.js';
import { Link } from './link.js';

/** The console's pages in the order of the nav; a page with a scope is offered to keys that hold it. */
const pages: readonly { to: string; label: MessageKey; scope?: string; only?: 'CERT' }[] = [
  { to: '/documentos', label: 'nav.documents', scope: 'documents:read' },
  { to: '/nueva-factura', label: 'nav.newInvoice', scope: 'documents:create' },
  { to: '/recibidos', label: 'nav.received', scope: 'received:read' },
  { to: '/secuencias', label: 'nav.sequences', scope: 'sequences:read' },
  { to: '/trabajos-fallidos', label: 'nav.failedJobs', scope: 'documents:read' },
  { to: '/notificaciones', label: 'nav.webhooks', scope: 'webhooks:manage' },
  { to: '/certificacion', label: 'nav.certification', scope: 'certification:manage', only: 'CERT' },
  { to: '/empresa', label: 'nav.company' },
];

/** Whether `path` is `page` or a page under it. */
const within = (path: string, page: string) => path === page || path.startsWith(`${page}/`);

export function LanguageSwitch() {
  const { lang, setLang, t } = useI18n();
  const other = lang === 'es' ? 'en' : 'es';
  return (
    <button
      type="button"
      class="link-button"
      lang={other}
      onClick={() => {
        setLang(other);
      }}
    >
      {t('shell.otherLanguage')}
    </button>
  );
}

export function Shell(props: { children: ComponentChildren; onSignOut: () => void }) {
  const { t } = useI18n();
  const { company, can } = useSession();
  const { path } = useLocation();
  const environment = company.environment;
  return (
    <div class="shell">
      <div class={`environment environment-${environment.toLowerCase()}`} role="note">
        <strong>{environment}</strong> {t(`environment.${environment}` as MessageKey)}
      </div>
      <header class="top">
        <span class="product">ecf-service</span>
        <span class="company">
          {company.company.tradeName ?? company.company.legalName} · RNC {company.company.rnc}
        </span>
        <details class="scopes">
          <summary>{t('shell.scopes', { count: company.effectiveScopes.length })}</summary>
          <ul>
            {company.effectiveScopes.map((scope) => (
              <li key={scope}>
                <code>{scope}</code>
              </li>
            ))}
          </ul>
        </details>
        <LanguageSwitch />
        <button type="button" onClick={props.onSignOut}>
          {t('shell.signOut')}
        </button>
      </header>
      <nav class="pages" aria-label={t('shell.pages')}>
        <ul>
          {pages
            .filter(
              (page) =>
                (page.scope === undefined || can(page.scope)) && (page.only === undefined || page.only === environment),
            )
            .map((page, i) => (
              <li key={page.to}>
                {/* The start ('/') is the first page the key may open. */}
                <Link to={page.to} current={within(path, page.to) || (path === '/' && i === 0)}>
                  {t(page.label)}
                </Link>
              </li>
            ))}
        </ul>
      </nav>
      <main class="content">{props.children}</main>
    </div>
  );
}
