// One received e-CF: who sent it and what it says, the acknowledgement (ARECF) answered, its printed representation
// shown in the page, the XML received and our ARECF/ACECF to download, its timeline, and the commercial response
// (approve, or reject with a reason) with the ACECF's deliveries, followed while any is on its way.
import { useState } from 'preact/hooks';
import { ok, type components, type EcfClient, type EcfProblem } from '../../../sdk/src/index.js';
import { asProblem, download, fetchBlob, useBlobUrl, useFollow, useLoad } from '../api.js';
import { dop, gmt4Time } from '../format.js';
import { useI18n } from '../i18n.js';
import type { MessageKey } from '../messages.js';
import { PdfFrame } from '../parts/pdf-frame.js';
import { ProblemBox } from '../parts/problem.js';
import { Status } from '../parts/status.js';
import { useSession } from '../session.js';
import { CommercialResponse, type ReceivedView } from './received-response.js';
import { Loading } from '../parts/loading.js';

type ArtefactType = components['schemas']['ReceivedArtefactSummary']['type'];

/** A delivery that will be attempted (again): `failed` has its next attempt scheduled. */
const onItsWay = new Set(['pending', 'failed']);

export function ReceivedDocumentPage({ id }: { id: string }) {
  const { t } = useI18n();
  const { client } = useSession();
  const loaded = useLoad(
    async () => (await ok(client.GET('/api/v1/recibidos/{id}', { params: { path: { id } } }))).data,
    [id],
  );

  // While the ACECF is on its way to the issuer or to DGII, the page follows it.
  const moving =
    loaded.state === 'ok' &&
    (loaded.data.commercialResponse?.deliveries.some((delivery) => onItsWay.has(delivery.status)) ?? false);
  useFollow(moving, loaded.reload);

  if (loaded.state === 'loading') return <Loading />;
  if (loaded.state === 'failed')
    return (
      <section>
        <h1>{t('receivedDocument.title')}</h1>
        <ProblemBox problem={loaded.problem} />
      </section>
    );
  const document = loaded.data;
  return (
    <section class="document">
      <h1>
        {document.eNCF} <Status group="receivedStatus" value={document.status} />
        {document.commercialStatus === null ? null : <Status group="commercial" value={document.commercialStatus} />}
      </h1>
      <div class="document-columns">
        <div>
          <Summary document={document} />
          <CommercialResponse document={document} onDone={loaded.reload} />
          <Arecf document={document} />
          <section>
            <h2>{t('document.timeline')}</h2>
            <ol class="timeline">
              {(document.timeline ?? []).map((event, i) => (
                <li key={i}>
                  <time dateTime={event.at}>{gmt4Time(event.at)}</time> <strong>{event.type}</strong>
                  <div class="cause">{event.cause}</div>
                </li>
              ))}
            </ol>
          </section>
        </div>
        <Printed document={document} />
      </div>
    </section>
  );
}

function Summary({ document }: { document: ReceivedView }) {
  const { t } = useI18n();
  const rows: [MessageKey, string][] = [
    ['received.issuerRnc', document.issuer.rnc],
    ['received.issuerName', document.issuer.name ?? '—'],
    [
      'documents.type',
      document.ecfType === null ? '—' : `${document.ecfType} · ${t(`ecfType.${document.ecfType}` as MessageKey)}`,
    ],
    ['documents.issued', document.fechaEmision ?? '—'],
    ['documents.buyer', document.rncComprador ?? '—'],
    ['documents.total', dop(document.montoTotal)],
    ['document.itbis', dop(document.totalITBIS)],
    ['received.receivedAt', gmt4Time(document.receivedAt)],
  ];
  return (
    <section>
      <h2>{t('document.summary')}</h2>
      <dl class="facts">
        {rows.map(([label, value]) => (
          <div key={label}>
            <dt>{t(label)}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function Arecf({ document }: { document: ReceivedView }) {
  const { t } = useI18n();
  const { arecf } = document;
  return (
    <section>
      <h2>{t('receivedDocument.arecf')}</h2>
      <dl class="facts">
        <div>
          <dt>{t('receivedDocument.arecfEstado')}</dt>
          <dd>{t(arecf.estado === '0' ? 'receivedDocument.arecfReceived' : 'receivedDocument.arecfNotReceived')}</dd>
        </div>
        {arecf.codigoMotivoNoRecibido === null ? null : (
          <div>
            <dt>{t('receivedDocument.notReceivedReason')}</dt>
            <dd>
              {t(`notReceivedReason.${arecf.codigoMotivoNoRecibido}` as MessageKey)}
              {arecf.motivo === null ? null : <div class="cause">{arecf.motivo}</div>}
            </dd>
          </div>
        )}
      </dl>
    </section>
  );
}

const pdfOf = (client: EcfClient, id: string) =>
  fetchBlob(
    client.GET('/api/v1/recibidos/{id}/impresion', {
      params: { path: { id } },
      headers: { accept: 'application/pdf' },
      parseAs: 'blob',
    }),
  );

const artefactFiles: readonly { type: ArtefactType; label: MessageKey; suffix: string }[] = [
  { type: 'received-xml', label: 'receivedDocument.downloadXml', suffix: '' },
  { type: 'arecf-xml', label: 'receivedDocument.downloadArecf', suffix: '-ARECF' },
  { type: 'acecf-xml', label: 'receivedDocument.downloadAcecf', suffix: '-ACECF' },
];

/** The printed representation (none for an e-CF answered "not received": the API answers 409) and the downloads. */
function Printed({ document }: { document: ReceivedView }) {
  const { t } = useI18n();
  return (
    <section class="printed">
      <h2>{t('document.printed')}</h2>
      {document.status === 'received' ? (
        <PrintedPdf document={document} />
      ) : (
        <>
          <Downloads document={document} />
          <p class="empty">{t('receivedDocument.noPrinted')}</p>
        </>
      )}
    </section>
  );
}

/** The PDF, fetched with the key and shown from a blob: URL (the key never rides in a URL). */
function PrintedPdf({ document }: { document: ReceivedView }) {
  const { client } = useSession();
  const pdf = useBlobUrl(() => pdfOf(client, document.id), [client, document.id]);
  return (
    <>
      <Downloads document={document} pdf={{ blob: pdf.state === 'ok' ? pdf.blob : undefined }} />
      <PdfFrame pdf={pdf} encf={document.eNCF} />
    </>
  );
}

/** The XML received and our answers to it, exactly as archived; the PDF when there is one (`blob` once fetched). */
function Downloads({ document, pdf }: { document: ReceivedView; pdf?: { blob: Blob | undefined } }) {
  const { t } = useI18n();
  const { client } = useSession();
  const [problem, setProblem] = useState<EcfProblem | undefined>(undefined);
  const archived = new Set(document.artefacts.map((artefact) => artefact.type));
  const save = async (type: ArtefactType, suffix: string) => {
    setProblem(undefined);
    try {
      const blob = await fetchBlob(
        client.GET('/api/v1/recibidos/{id}/artefactos/{type}', {
          params: { path: { id: document.id, type } },
          parseAs: 'blob',
        }),
      );
      download(blob, `${document.eNCF}${suffix}.xml`);
    } catch (error) {
      setProblem(asProblem(error));
    }
  };
  return (
    <>
      <div class="downloads">
        {artefactFiles
          .filter((file) => archived.has(file.type))
          .map((file) => (
            <button key={file.type} type="button" onClick={() => void save(file.type, file.suffix)}>
              {t(file.label)}
            </button>
          ))}
        {pdf === undefined ? null : (
          <button
            type="button"
            disabled={pdf.blob === undefined}
            onClick={() => {
              if (pdf.blob !== undefined) download(pdf.blob, `${document.eNCF}.pdf`);
            }}
          >
            {t('document.downloadPdf')}
          </button>
        )}
      </div>
      {problem === undefined ? null : <ProblemBox problem={problem} />}
    </>
  );
}
