// The service's preview of the document being written (POST /api/v1/documentos/vista-previa): its totals, each
// line's MontoItem and its findings, asked for a moment after the person stops typing. Only the latest answer is
// shown; one for a body already changed is dropped.
import { useEffect, useState } from 'preact/hooks';
import { ok, type components, type EcfProblem } from '../../../sdk/src/index.js';
import { asProblem } from '../api.js';
import { dop } from '../format.js';
import { useI18n } from '../i18n.js';
import { ProblemBox } from '../parts/problem.js';
import { useSession } from '../session.js';

type DocumentPreview = components['schemas']['DocumentPreview'];
/** A finding of the preview, or a field error of a refusal: both name the e-CF field by its JSON pointer. */
export type Finding = Pick<components['schemas']['DocumentFinding'], 'pointer' | 'code' | 'detail'>;

export type PreviewState =
  | { state: 'waiting'; findings: readonly Finding[] }
  | { state: 'ok'; data: DocumentPreview; findings: readonly Finding[] }
  | { state: 'failed'; problem: EcfProblem; findings: readonly Finding[] };

const quietMs = 300;

export function usePreview(body: Record<string, unknown> | undefined): PreviewState {
  const { client } = useSession();
  const [preview, setPreview] = useState<PreviewState>({ state: 'waiting', findings: [] });
  const text = body === undefined ? undefined : JSON.stringify(body);
  useEffect(() => {
    if (text === undefined) return;
    let current = true;
    const timer = setTimeout(() => {
      ok(client.POST('/api/v1/documentos/vista-previa', { body: JSON.parse(text) as never })).then(
        ({ data }) => {
          if (current) setPreview({ state: 'ok', data, findings: data.findings });
        },
        (error: unknown) => {
          const problem = asProblem(error);
          if (current) setPreview({ state: 'failed', problem, findings: problem.errors });
        },
      );
    }, quietMs);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [client, text]);
  return preview;
}

export function Preview({ preview }: { preview: PreviewState }) {
  const { t } = useI18n();
  if (preview.state === 'failed') return <ProblemBox problem={preview.problem} />;
  return (
    <section class="preview" aria-live="polite">
      <h2>{t('invoice.preview')}</h2>
      {preview.state === 'waiting' ? (
        <p class="loading">{t('invoice.previewWaiting')}</p>
      ) : (
        <>
          <dl class="facts">
            {preview.data.lineas.map((line) => (
              <div key={line.numeroLinea}>
                <dt>{t('invoice.lineAmount', { n: line.numeroLinea })}</dt>
                <dd>{dop(line.montoItem)}</dd>
              </div>
            ))}
            {Object.entries(preview.data.totales ?? {}).map(([name, value]) => (
              <div key={name}>
                <dt>{name}</dt>
                <dd>{/^ITBIS\d$/.test(name) ? `${value} %` : dop(value)}</dd>
              </div>
            ))}
          </dl>
          <p class={preview.data.valid ? 'said' : 'field-error'}>
            {t(preview.data.valid ? 'invoice.previewValid' : 'invoice.previewInvalid')}
          </p>
        </>
      )}
    </section>
  );
}
