// DGII's certification (CERT instances), as a checklist a person can follow: the steps and where each stands, what
// to do next (the API's checklist, in its words), the test cases' tally, the confirmations made, and the actions:
// start with the set file (`ecf certification convert` writes it from DGII's workbook), confirm a manual step with
// a note, run the pending cases, download the printed representations for the portal, complete.
import { useState } from 'preact/hooks';
import { ok, type components, type EcfProblem } from '../../../sdk/src/index.js';
import { asProblem, download, fetchBlob, useLoad } from '../api.js';
import { gmt4Time } from '../format.js';
import { useI18n } from '../i18n.js';
import type { MessageKey } from '../messages.js';
import { ProblemBox } from '../parts/problem.js';
import { useSession } from '../session.js';
import { Loading } from '../parts/loading.js';

type Process = components['schemas']['CertificationProcess'];
type SetFile = components['schemas']['CertificationSetFile'];

export function CertificationPage() {
  const { t } = useI18n();
  const { client, company } = useSession();
  const loaded = useLoad(async () => (await ok(client.GET('/api/v1/certificacion'))).data, []);

  if (company.environment !== 'CERT')
    return (
      <section>
        <h1>{t('certification.title')}</h1>
        <p>{t('certification.onlyCert', { environment: company.environment })}</p>
      </section>
    );
  return (
    <section class="certification">
      <h1>{t('certification.title')}</h1>
      {loaded.state === 'loading' ? <Loading /> : null}
      {loaded.state === 'failed' ? <ProblemBox problem={loaded.problem} /> : null}
      {loaded.state === 'ok' ? (
        loaded.data === null || loaded.data.status !== 'active' ? (
          <>
            {loaded.data === null ? null : <ProcessView process={loaded.data} onChanged={loaded.reload} />}
            <StartForm onStarted={loaded.reload} />
          </>
        ) : (
          <ProcessView process={loaded.data} onChanged={loaded.reload} />
        )
      ) : null}
    </section>
  );
}

function StartForm({ onStarted }: { onStarted: () => void }) {
  const { t } = useI18n();
  const { client } = useSession();
  const [problem, setProblem] = useState<EcfProblem | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const start = async (file: File) => {
    setBusy(true);
    setProblem(undefined);
    try {
      const body = JSON.parse(await file.text()) as SetFile;
      await ok(client.POST('/api/v1/certificacion/iniciar', { body }));
      onStarted();
    } catch (error) {
      setProblem(
        error instanceof SyntaxError
          ? asProblem(new Error(t('certification.notJson', { name: file.name })))
          : asProblem(error),
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="start-form"
      onSubmit={(event) => {
        event.preventDefault();
        const input = event.currentTarget.elements.namedItem('set-file');
        const file = input instanceof HTMLInputElement ? input.files?.[0] : undefined;
        if (file !== undefined) void start(file);
      }}
    >
      <h2>{t('certification.start')}</h2>
      <p>{t('certification.startHelp')}</p>
      <label for="set-file">{t('certification.setFile')}</label>
      <input id="set-file" name="set-file" type="file" accept="application/json,.json" required />
      <button type="submit" disabled={busy}>
        {t('certification.startButton')}
      </button>
      {problem === undefined ? null : <ProblemBox problem={problem} />}
    </form>
  );
}

const checklistTone: Record<string, string> = { ok: 'good', pending: 'neutral', attention: 'warn', blocked: 'bad' };
const stepTone: Record<string, string> = { done: 'good', open: 'warn', locked: 'neutral', failed: 'bad' };

function ProcessView({ process, onChanged }: { process: Process; onChanged: () => void }) {
  const { t } = useI18n();
  const { client } = useSession();
  const [problem, setProblem] = useState<EcfProblem | undefined>(undefined);
  const [said, setSaid] = useState<string | undefined>(undefined);
  const active = process.status === 'active';
  const act = async (what: () => Promise<unknown>, done: MessageKey) => {
    setProblem(undefined);
    setSaid(undefined);
    try {
      await what();
      setSaid(t(done));
      onChanged();
    } catch (error) {
      setProblem(asProblem(error));
    }
  };
  const path = { params: { path: { id: process.id } } };
  return (
    <>
      <p>
        <strong>{process.label}</strong> ·{' '}
        <span
          class={`status status-${process.status === 'active' ? 'warn' : process.status === 'completed' ? 'good' : 'bad'}`}
        >
          {t(`certification.process.${process.status}` as MessageKey)}
        </span>{' '}
        · {t('certification.startedAt', { at: gmt4Time(process.createdAt) })}
      </p>
      {said === undefined ? null : (
        <p role="status" class="said">
          {said}
        </p>
      )}
      {problem === undefined ? null : <ProblemBox problem={problem} />}
      {active ? (
        <div class="actions">
          <button
            type="button"
            onClick={() =>
              void act(() => ok(client.POST('/api/v1/certificacion/{id}/ejecutar', path)), 'certification.ran')
            }
          >
            {t('certification.run')}
          </button>
          <button
            type="button"
            onClick={() =>
              void act(async () => {
                const zip = await fetchBlob(
                  client.GET('/api/v1/certificacion/{id}/representaciones-impresas', { ...path, parseAs: 'blob' }),
                );
                download(zip, `representaciones-impresas-${process.id}.zip`);
              }, 'certification.downloaded')
            }
          >
            {t('certification.printed')}
          </button>
          <button
            type="button"
            onClick={() =>
              void act(() => ok(client.POST('/api/v1/certificacion/{id}/completar', path)), 'certification.completed')
            }
          >
            {t('certification.complete')}
          </button>
        </div>
      ) : null}

      <h2>{t('certification.checklist')}</h2>
      <ol class="checklist">
        {process.checklist.map((item) => (
          <li key={item.id}>
            <span class={`status status-${checklistTone[item.status] ?? 'neutral'}`}>
              {t(`certification.check.${item.status}` as MessageKey)}
            </span>{' '}
            <strong>{item.title}</strong>
            {item.required ? null : <span class="optional"> ({t('certification.optional')})</span>}
            <div class="cause">{item.detail}</div>
          </li>
        ))}
      </ol>

      <h2>{t('certification.steps')}</h2>
      <table class="list">
        <caption class="visually-hidden">{t('certification.steps')}</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">{t('certification.step')}</th>
            <th scope="col">{t('certification.mode')}</th>
            <th scope="col">{t('documents.status')}</th>
            <th scope="col">{t('certification.doneAt')}</th>
            <th scope="col">
              <span class="visually-hidden">{t('certification.confirm')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {process.steps.map((step) => (
            <tr key={step.number}>
              <td>{step.number}</td>
              <td>{step.name}</td>
              <td>{t(step.mode === 'manual' ? 'certification.manual' : 'certification.automatic')}</td>
              <td>
                <span class={`status status-${stepTone[step.status] ?? 'neutral'}`}>
                  {t(`certification.stepStatus.${step.status}` as MessageKey)}
                </span>
              </td>
              <td>{gmt4Time(step.doneAt)}</td>
              <td>
                {active && step.mode === 'manual' && step.status === 'open' && step.key !== null ? (
                  <ConfirmStep
                    name={step.name}
                    onConfirm={(note) => {
                      const key = step.key ?? '';
                      void act(
                        () =>
                          ok(
                            client.POST('/api/v1/certificacion/{id}/pasos/{key}/confirmar', {
                              params: { path: { id: process.id, key } },
                              body: note === '' ? {} : { note },
                            }),
                          ),
                        'certification.confirmed',
                      );
                    }}
                  />
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>

      <h2>{t('certification.cases')}</h2>
      <dl class="facts">
        {(['total', 'pending', 'sent', 'accepted', 'rejected', 'error'] as const).map((name) => (
          <div key={name}>
            <dt>{t(`certification.cases.${name}` as MessageKey)}</dt>
            <dd>{process.cases[name]}</dd>
          </div>
        ))}
      </dl>

      {process.confirmations.length === 0 ? null : (
        <>
          <h2>{t('certification.confirmations')}</h2>
          <ul>
            {process.confirmations.map((confirmation) => (
              <li key={`${String(confirmation.step)}-${confirmation.confirmedAt}`}>
                {gmt4Time(confirmation.confirmedAt)} · {confirmation.key}
                {confirmation.note === null ? '' : `: ${confirmation.note}`}
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}

function ConfirmStep({ name, onConfirm }: { name: string; onConfirm: (note: string) => void }) {
  const { t } = useI18n();
  const [note, setNote] = useState('');
  const id = `note-${name.replace(/\W+/g, '-')}`;
  return (
    <form
      class="confirm-step"
      onSubmit={(event) => {
        event.preventDefault();
        onConfirm(note.trim());
      }}
    >
      <label for={id} class="visually-hidden">
        {t('certification.note', { step: name })}
      </label>
      <input
        id={id}
        type="text"
        placeholder={t('certification.notePlaceholder')}
        value={note}
        onInput={(event) => {
          setNote(event.currentTarget.value);
        }}
      />
      <button type="submit">{t('certification.confirmStep', { step: name })}</button>
    </form>
  );
}
