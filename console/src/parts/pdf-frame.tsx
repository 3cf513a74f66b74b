// A printed representation in the page: the PDF fetched with the key (useBlobUrl) and framed from its blob: URL,
// the loading status meanwhile, or the API's problem.
import type { LoadedBlob } from '../api.js';
import { useI18n } from '../i18n.js';
import { Loading } from './loading.js';
import { ProblemBox } from './problem.js';

export function PdfFrame({ pdf, encf }: { pdf: LoadedBlob; encf: string }) {
  const { t } = useI18n();
  if (pdf.state === 'loading') return <Loading />;
  if (pdf.state === 'failed') return <ProblemBox problem={pdf.problem} />;
  return <iframe class="pdf" src={pdf.url} title={t('document.pdfTitle', { encf })} />;
}
