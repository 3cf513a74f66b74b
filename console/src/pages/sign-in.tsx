// Signing in with an API key: typed into a password field (never shown, never in the URL: the form is not
// submitted anywhere), checked against GET /api/v1/empresa.
import { useState } from 'preact/hooks';
import type { EcfProblem } from '../../../sdk/src/index.js';
import { asProblem } from '../api.js';
import { useI18n } from '../i18n.js';
import { LanguageSwitch } from '../parts/shell.js';
import { ProblemBox } from '../parts/problem.js';
import { openSession, type Session } from '../session.js';

export function SignInPage(props: { problem: EcfProblem | undefined; onSignedIn: (session: Session) => void }) {
  const { t } = useI18n();
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState(props.problem);
  return (
    <main class="sign-in">
      <div class="sign-in-box">
        <h1>{t('signIn.title')}</h1>
        <p>{t('signIn.intro')}</p>
        <form
          method="post"
          action="#"
          onSubmit={(event) => {
            event.preventDefault();
            setBusy(true);
            setProblem(undefined);
            openSession(key.trim())
              .then(props.onSignedIn, (error: unknown) => {
                setProblem(asProblem(error));
              })
              .finally(() => {
                setBusy(false);
              });
          }}
        >
          <label for="api-key">{t('signIn.key')}</label>
          <input
            id="api-key"
            name="api-key"
            type="password"
            autocomplete="off"
            spellcheck={false}
            required
            value={key}
            onInput={(event) => {
              setKey(event.currentTarget.value);
            }}
          />
          <button type="submit" disabled={busy || key.trim() === ''}>
            {busy ? t('common.loading') : t('signIn.submit')}
          </button>
        </form>
        {problem === undefined ? null : <ProblemBox problem={problem} />}
        <p class="hint">{t('signIn.keyKept')}</p>
        <LanguageSwitch />
      </div>
    </main>
  );
}
