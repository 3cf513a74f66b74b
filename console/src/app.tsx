// The console: signing in, then the pages of a signed-in company, each at its own address under /consola.
import { useEffect, useState } from 'preact/hooks';
import type { EcfProblem } from '../../sdk/src/index.js';
import { asProblem } from './api.js';
import { I18nProvider } from './i18n.js';
import { CertificationPage } from './pages/certification.js';
import { CompanyPage } from './pages/company.js';
import { DocumentPage } from './pages/document.js';
import { DocumentsPage } from './pages/documents.js';
import { FailedJobsPage } from './pages/failed-jobs.js';
import { NewInvoicePage } from './pages/new-invoice.js';
import { NotFoundPage } from './pages/not-found.js';
import { ReceivedDocumentPage } from './pages/received-document.js';
import { ReceivedPage } from './pages/received.js';
import { SequencesPage } from './pages/sequences.js';
import { SignInPage } from './pages/sign-in.js';
import { WebhookPage } from './pages/webhook.js';
import { WebhooksPage } from './pages/webhooks.js';
import { Loading } from './parts/loading.js';
import { Shell } from './parts/shell.js';
import { match, navigate, useLocation } from './router.js';
import { forgetKey, openSession, SessionContext, storedKey, useSession, type Session } from './session.js';

export function App() {
  return (
    <I18nProvider>
      <Root />
    </I18nProvider>
  );
}

function Root() {
  const [session, setSession] = useState<Session | undefined>(undefined);
  const [resuming, setResuming] = useState(() => storedKey() !== undefined);
  const [problem, setProblem] = useState<EcfProblem | undefined>(undefined);
  useEffect(() => {
    const key = storedKey();
    if (key === undefined) return;
    openSession(key)
      .then(setSession, (error: unknown) => {
        const refused = asProblem(error);
        // A key the service no longer takes is forgotten; an outage keeps it for the next try.
        if (refused.status === 401 || refused.status === 403) forgetKey();
        setProblem(refused);
      })
      .finally(() => {
        setResuming(false);
      });
  }, []);

  if (resuming) return <Loading />;
  if (session === undefined) return <SignInPage problem={problem} onSignedIn={setSession} />;
  return (
    <SessionContext.Provider value={session}>
      <Shell
        onSignOut={() => {
          forgetKey();
          setSession(undefined);
          setProblem(undefined);
          navigate('/');
        }}
      >
        <Page />
      </Shell>
    </SessionContext.Provider>
  );
}

function Page() {
  const { path } = useLocation();
  const { can } = useSession();
  // The start is the first page the key may open: a key for the inbox alone starts there, one for neither at the
  // company's page (any key may read it), never at a page the API would refuse.
  const start = can('documents:read') ? '/documentos' : can('received:read') ? '/recibidos' : '/empresa';
  const at = path === '/' ? start : path;
  if (at === '/documentos') return <DocumentsPage />;
  if (at === '/certificacion') return <CertificationPage />;
  if (at === '/nueva-factura') return <NewInvoicePage />;
  const document = match('/documentos/:id', at);
  if (document !== undefined) return <DocumentPage id={document['id'] ?? ''} />;
  if (at === '/recibidos') return <ReceivedPage />;
  const received = match('/recibidos/:id', at);
  if (received !== undefined) return <ReceivedDocumentPage id={received['id'] ?? ''} />;
  if (at === '/secuencias') return <SequencesPage />;
  if (at === '/trabajos-fallidos') return <FailedJobsPage />;
  if (at === '/notificaciones') return <WebhooksPage />;
  const endpoint = match('/notificaciones/:id', at);
  // Keyed by the endpoint: a secret shown on one endpoint's page never carries over to another's.
  if (endpoint !== undefined) return <WebhookPage key={endpoint['id']} id={endpoint['id'] ?? ''} />;
  if (at === '/empresa') return <CompanyPage />;
  return <NotFoundPage />;
}
