// A new invoice, for a person without an ERP: a guided form for the common types (31 crédito fiscal, 32 consumo, 34
// nota de crédito against an issued invoice) with its lines and their ITBIS, and the full JSON for every other type.
// Nothing fiscal is computed here: the totals come from the service's own preview (POST /documentos/vista-previa),
// which composes and checks the document without numbering or storing it, and every finding is shown at the field its
// JSON pointer names (the same pointers a 422 of the creation carries).
import { useState } from 'preact/hooks';
import { ok, type EcfProblem } from '../../../sdk/src/index.js';
import { asProblem } from '../api.js';
import { useI18n } from '../i18n.js';
import type { MessageKey } from '../messages.js';
import { ProblemBox } from '../parts/problem.js';
import { navigate } from '../router.js';
import { useSession } from '../session.js';
import { Preview, usePreview, type Finding } from './invoice-preview.js';
import { bodyOf, blankLine, fieldOfPointer, type InvoiceForm, type Line } from './invoice-form.js';

const guidedTypes = ['31', '32', '34'] as const;

export function NewInvoicePage() {
  const { t } = useI18n();
  const { client, can } = useSession();
  const [mode, setMode] = useState<'guided' | 'json'>('guided');
  const [form, setForm] = useState<InvoiceForm>({
    type: '31',
    income: '01',
    payment: '1',
    pricesIncludeItbis: false,
    rnc: '',
    name: '',
    email: '',
    reference: { encf: '', date: '', code: '3', reason: '', creditIndicator: '0' },
    lines: [blankLine()],
  });
  const [json, setJson] = useState('');
  const [problem, setProblem] = useState<EcfProblem | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const body = mode === 'guided' ? bodyOf(form) : parsedJson(json);
  const preview = usePreview(body);

  const findings: readonly Finding[] = problem?.errors ?? preview.findings;
  const errorAt = (field: string) =>
    findings.filter((finding) => fieldOfPointer(finding.pointer) === field).map((finding) => finding.detail);
  const unplaced = findings.filter((finding) => mode === 'json' || fieldOfPointer(finding.pointer) === undefined);

  const create = async () => {
    if (body === undefined) return;
    setBusy(true);
    setProblem(undefined);
    try {
      const { data } = await ok(client.POST('/api/v1/documentos', { body: body as never }));
      navigate(`/documentos/${data.id}`);
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };

  const lookUpBuyer = async () => {
    const rnc = form.rnc.trim();
    if (!can('taxpayers:read') || !/^(\d{9}|\d{11})$/.test(rnc) || form.name.trim() !== '') return;
    const found = await client.GET('/api/v1/contribuyentes/{rnc}', { params: { path: { rnc } } });
    if (found.data !== undefined)
      setForm((current) => ({ ...current, name: current.name || found.data.data.legalName }));
  };

  const set = (patch: Partial<InvoiceForm>) => {
    setForm((current) => ({ ...current, ...patch }));
  };
  const setLine = (index: number, patch: Partial<Line>) => {
    setForm((current) => ({
      ...current,
      lines: current.lines.map((line, i) => (i === index ? { ...line, ...patch } : line)),
    }));
  };

  return (
    <section class="new-invoice">
      <h1>{t('invoice.title')}</h1>
      <div class="mode" role="group" aria-label={t('invoice.mode')}>
        <button
          type="button"
          aria-pressed={mode === 'guided'}
          onClick={() => {
            setMode('guided');
          }}
        >
          {t('invoice.guided')}
        </button>
        <button
          type="button"
          aria-pressed={mode === 'json'}
          onClick={() => {
            setJson(JSON.stringify(bodyOf(form), null, 2));
            setMode('json');
          }}
        >
          {t('invoice.json')}
        </button>
      </div>
      <form
        class="invoice-form"
        onSubmit={(event) => {
          event.preventDefault();
          void create();
        }}
      >
        {mode === 'json' ? (
          <Field
            id="json"
            label={t('invoice.jsonLabel')}
            errors={body === undefined && json.trim() !== '' ? [t('invoice.jsonInvalid')] : []}
          >
            <textarea
              id="json"
              rows={24}
              spellcheck={false}
              value={json}
              onInput={(event) => {
                setJson(event.currentTarget.value);
              }}
            />
          </Field>
        ) : (
          <GuidedFields
            form={form}
            set={set}
            setLine={setLine}
            errorAt={errorAt}
            onBuyerRnc={() => void lookUpBuyer()}
          />
        )}
        {unplaced.length === 0 ? null : (
          <ul class="findings" aria-label={t('invoice.findings')}>
            {unplaced.map((finding) => (
              <li key={`${finding.pointer}-${finding.code}`}>
                <code>{finding.pointer}</code>: {finding.detail}
              </li>
            ))}
          </ul>
        )}
        <Preview preview={preview} />
        {problem === undefined ? null : <ProblemBox problem={problem} />}
        <button type="submit" disabled={busy || body === undefined}>
          {t('invoice.create')}
        </button>
      </form>
    </section>
  );
}

function parsedJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function Field(props: {
  id: string;
  label: string;
  errors: readonly string[];
  children: preact.ComponentChildren;
  hint?: string;
}) {
  const described = props.errors.length > 0 ? `${props.id}-errors` : undefined;
  return (
    <div class={`field${props.errors.length > 0 ? ' field-invalid' : ''}`}>
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint === undefined ? null : <span class="hint">{props.hint}</span>}
      {described === undefined ? null : (
        <span id={described} class="field-error" role="alert">
          {props.errors.join(' ')}
        </span>
      )}
    </div>
  );
}

function GuidedFields(props: {
  form: InvoiceForm;
  set: (patch: Partial<InvoiceForm>) => void;
  setLine: (index: number, patch: Partial<Line>) => void;
  errorAt: (field: string) => string[];
  onBuyerRnc: () => void;
}) {
  const { t } = useI18n();
  const { form, set, setLine, errorAt } = props;
  const select = (
    id: string,
    label: MessageKey,
    value: string,
    options: readonly [string, string][],
    onChange: (value: string) => void,
  ) => (
    <Field id={id} label={t(label)} errors={errorAt(id)}>
      <select
        id={id}
        value={value}
        aria-invalid={errorAt(id).length > 0}
        onChange={(event) => {
          onChange(event.currentTarget.value);
        }}
      >
        {options.map(([option, text]) => (
          <option key={option} value={option}>
            {text}
          </option>
        ))}
      </select>
    </Field>
  );
  const input = (
    id: string,
    label: MessageKey,
    value: string,
    onInput: (value: string) => void,
    extra: { inputMode?: 'text' | 'email'; hint?: string; onBlur?: () => void } = {},
  ) => (
    <Field id={id} label={t(label)} errors={errorAt(id)} hint={extra.hint}>
      <input
        id={id}
        type="text"
        inputMode={extra.inputMode ?? 'text'}
        value={value}
        aria-invalid={errorAt(id).length > 0}
        onInput={(event) => {
          onInput(event.currentTarget.value);
        }}
        onBlur={extra.onBlur}
      />
    </Field>
  );
  return (
    <>
      <fieldset>
        <legend>{t('invoice.document')}</legend>
        <div class="row">
          {select(
            'type',
            'invoice.type',
            form.type,
            guidedTypes.map((type) => [type, `${type} · ${t(`ecfType.${type}` as MessageKey)}`]),
            (type) => {
              set({ type: type as InvoiceForm['type'] });
            },
          )}
          {select(
            'income',
            'invoice.income',
            form.income,
            (['01', '02', '03', '04', '05', '06'] as const).map((code) => [
              code,
              `${code} · ${t(`income.${code}` as MessageKey)}`,
            ]),
            (income) => {
              set({ income });
            },
          )}
          {select(
            'payment',
            'invoice.payment',
            form.payment,
            (['1', '2', '3'] as const).map((code) => [code, t(`payment.${code}` as MessageKey)]),
            (payment) => {
              set({ payment: payment as InvoiceForm['payment'] });
            },
          )}
        </div>
        <div class="checkbox">
          <input
            id="prices-include-itbis"
            type="checkbox"
            checked={form.pricesIncludeItbis}
            onChange={(event) => {
              set({ pricesIncludeItbis: event.currentTarget.checked });
            }}
          />
          <label for="prices-include-itbis">{t('invoice.pricesIncludeItbis')}</label>
        </div>
      </fieldset>
      <fieldset>
        <legend>{t('invoice.buyer')}</legend>
        <div class="row">
          {input(
            'buyer-rnc',
            form.type === '32' ? 'invoice.buyerRncOptional' : 'invoice.buyerRnc',
            form.rnc,
            (rnc) => {
              set({ rnc });
            },
            { onBlur: props.onBuyerRnc },
          )}
          {input('buyer-name', 'invoice.buyerName', form.name, (name) => {
            set({ name });
          })}
          {input(
            'buyer-email',
            'invoice.buyerEmail',
            form.email,
            (email) => {
              set({ email });
            },
            { inputMode: 'email', hint: t('invoice.buyerEmailHint') },
          )}
        </div>
      </fieldset>
      {form.type === '34' ? (
        <fieldset>
          <legend>{t('invoice.reference')}</legend>
          <div class="row">
            {input('ref-encf', 'invoice.referenceEncf', form.reference.encf, (encf) => {
              set({ reference: { ...form.reference, encf } });
            })}
            {input(
              'ref-date',
              'invoice.referenceDate',
              form.reference.date,
              (date) => {
                set({ reference: { ...form.reference, date } });
              },
              { hint: 'dd-MM-yyyy' },
            )}
            {select(
              'ref-code',
              'invoice.referenceCode',
              form.reference.code,
              (['1', '2', '3', '4', '5'] as const).map((code) => [
                code,
                `${code} · ${t(`modification.${code}` as MessageKey)}`,
              ]),
              (code) => {
                set({ reference: { ...form.reference, code } });
              },
            )}
            {select(
              'ref-indicator',
              'invoice.creditIndicator',
              form.reference.creditIndicator,
              [
                ['0', t('invoice.creditWithin30')],
                ['1', t('invoice.creditAfter30')],
              ],
              (creditIndicator) => {
                set({ reference: { ...form.reference, creditIndicator } });
              },
            )}
          </div>
          {input('ref-reason', 'invoice.referenceReason', form.reference.reason, (reason) => {
            set({ reference: { ...form.reference, reason } });
          })}
        </fieldset>
      ) : null}
      <fieldset>
        <legend>{t('invoice.lines')}</legend>
        {form.lines.map((line, index) => (
          <div class="line" key={index}>
            <span class="line-number">{index + 1}</span>
            {input(`line-${String(index)}-name`, 'invoice.lineName', line.name, (name) => {
              setLine(index, { name });
            })}
            {select(
              `line-${String(index)}-kind`,
              'invoice.lineKind',
              line.kind,
              [
                ['1', t('invoice.good')],
                ['2', t('invoice.service')],
              ],
              (kind) => {
                setLine(index, { kind: kind as Line['kind'] });
              },
            )}
            {input(`line-${String(index)}-quantity`, 'invoice.lineQuantity', line.quantity, (quantity) => {
              setLine(index, { quantity });
            })}
            {input(`line-${String(index)}-price`, 'invoice.linePrice', line.price, (price) => {
              setLine(index, { price });
            })}
            {select(
              `line-${String(index)}-billing`,
              'invoice.lineItbis',
              line.billing,
              (['1', '2', '3', '4'] as const).map((code) => [code, t(`billing.${code}` as MessageKey)]),
              (billing) => {
                setLine(index, { billing: billing as Line['billing'] });
              },
            )}
            <button
              type="button"
              class="link-button"
              disabled={form.lines.length === 1}
              onClick={() => {
                set({ lines: form.lines.filter((_, i) => i !== index) });
              }}
            >
              {t('invoice.removeLine', { n: index + 1 })}
            </button>
          </div>
        ))}
        <button
          type="button"
          class="secondary"
          onClick={() => {
            set({ lines: [...form.lines, blankLine()] });
          }}
        >
          {t('invoice.addLine')}
        </button>
      </fieldset>
    </>
  );
}
