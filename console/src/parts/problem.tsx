// What the service answered when it refused: its problem+json title and detail, the fields at fault, and the
// correlation id to quote when asking about it.
import type { EcfProblem } from '../../../sdk/src/index.js';
import { useI18n } from '../i18n.js';

export function ProblemBox({ problem }: { problem: EcfProblem }) {
  const { t } = useI18n();
  return (
    <div class="problem" role="alert">
      <p class="problem-title">
        {problem.title}
        {problem.status > 0 ? <span class="problem-status"> ({problem.status})</span> : null}
      </p>
      <p>{problem.detail}</p>
      {problem.errors.length > 0 ? (
        <ul>
          {problem.errors.map((error) => (
            <li key={`${error.in}${error.pointer}`}>
              <code>{error.pointer}</code>: {error.detail}
            </li>
          ))}
        </ul>
      ) : null}
      {problem.correlationId === '' ? null : (
        <p class="problem-correlation">
          {t('problem.correlation')} <code>{problem.correlationId}</code>
        </p>
      )}
    </div>
  );
}
