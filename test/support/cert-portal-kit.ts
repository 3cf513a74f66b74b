// The taxpayer's side of the sandbox's certification portal, for its tests: the portal's admin routes, the set read
// back from the workbook the portal hands out, each set row built VERBATIM and signed (its e-NCF and expiry given
// to the builder as the owned fields it is; FechaHoraFirma the signer's), and CerteCF's services called the way a
// DGII client calls them.
import assert from 'node:assert/strict';
import { deriveAcecfCases, splitOwnedFields, type SetCase } from '../../src/fiscal/certification/index.js';
import { buildEcf } from '../../src/fiscal/build/index.js';
import { buildAcecf } from '../../src/fiscal/responses/acecf.js';
import { buildRfce } from '../../src/fiscal/responses/rfce.js';
import { signCanonicalDocument, type SigningKey } from '../../src/fiscal/xmldsig/index.js';
import { casesOfWorkbook } from '../../src/sandbox/certification/set-reading.js';
import { xmlForm, type RunningSandbox } from './sandbox-kit.js';

export const certecf = 'certecf';
export const xlsxType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

export interface Counts {
  accepted: number;
  expected: number;
}

export interface PostulacionView {
  rnc: string;
  step: number;
  stepName: string;
  cancelled: boolean;
  counters: {
    '2': { ecf: Record<string, Counts>; rfce: Counts; consumerInvoiceUploads: Counts };
    '3': { approvals: Counts };
    '4': { ecf: Record<string, Counts>; rfce: Counts; consumerInvoiceUploads: Counts };
  };
  inbox: { at: string; text: string }[];
  urls: { test: Record<string, string>; production: Record<string, string> | null };
  setName: string | null;
}

export interface ActionAnswer {
  outcome?: string;
  message: string;
  postulacion?: PostulacionView;
  step?: number;
  problems?: string[];
}

/** The portal of one RNC, through /sandbox-admin/certification/:rnc. */
export function portalOf(running: RunningSandbox, rnc: string) {
  return {
    async apply(urls: { receptionUrl: string; approvalUrl: string; authenticationUrl: string }) {
      return running.admin('POST', `/certification/${rnc}`, urls) as Promise<{
        status: number;
        body: PostulacionView & { message?: string };
      }>;
    },
    async state(): Promise<PostulacionView> {
      const { status, body } = await running.admin('GET', `/certification/${rnc}`);
      assert.equal(status, 200, JSON.stringify(body));
      return body as PostulacionView;
    },
    async act(action: string, body?: unknown): Promise<{ status: number; body: ActionAnswer }> {
      return running.admin('POST', `/certification/${rnc}/actions/${action}`, body) as Promise<{
        status: number;
        body: ActionAnswer;
      }>;
    },
    /** The set workbook the portal hands out: its bytes, file name and cases. */
    async downloadSet(query = ''): Promise<{
      status: number;
      bytes: Buffer;
      filename: string | undefined;
      contentType: string | null;
      cases: SetCase[];
    }> {
      const response = await fetch(`${running.url}/sandbox-admin/certification/${rnc}/set.xlsx${query}`);
      const bytes = Buffer.from(await response.arrayBuffer());
      const filename = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1];
      if (response.status !== 200)
        return {
          status: response.status,
          bytes,
          filename,
          contentType: response.headers.get('content-type'),
          cases: [],
        };
      const read = await casesOfWorkbook(bytes);
      assert.ok(read.ok, read.ok ? '' : read.problems.join('\n'));
      return {
        status: response.status,
        bytes,
        filename,
        contentType: response.headers.get('content-type'),
        cases: read.cases,
      };
    },
  };
}

export type Portal = ReturnType<typeof portalOf>;

export const ecfRows = (cases: readonly SetCase[]) => cases.filter((setCase) => setCase.kind === 'ECF');
export const rfceRows = (cases: readonly SetCase[]) => cases.filter((setCase) => setCase.kind === 'RFCE');
export const encfOfRow = (setCase: SetCase) => splitOwnedFields(setCase.payload).eNCF ?? '';
const isNote = (setCase: SetCase) => setCase.ecfType === '33' || setCase.ecfType === '34';

/** The set's reception rows (every ECF row but the 32s sent as RFCE), invoices first, then the notes (research §3: 614). */
export function receptionRows(cases: readonly SetCase[]): SetCase[] {
  const rfceKeys = new Set(rfceRows(cases).map((setCase) => setCase.caseKey));
  const rows = ecfRows(cases).filter((setCase) => !rfceKeys.has(setCase.caseKey));
  return [...rows.filter((setCase) => !isNote(setCase)), ...rows.filter(isNote)];
}

/** A set row's e-CF, built verbatim and signed. */
export function signedRowEcf(
  row: SetCase,
  key: SigningKey,
  fechaHoraFirma: string,
  change?: (document: Record<string, unknown>) => void,
): { xml: string; encf: string; filename: string } {
  const { document, eNCF, fechaVencimientoSecuencia } = splitOwnedFields(structuredClone(row.payload));
  change?.(document);
  assert.ok(eNCF !== undefined);
  const built = buildEcf(document, {
    eNCF,
    ...(fechaVencimientoSecuencia === undefined ? {} : { fechaVencimientoSecuencia }),
    fechaHoraFirma,
  });
  assert.ok(built.ok, built.ok ? '' : JSON.stringify(built.findings));
  const rnc = row.caseKey.slice(0, -13);
  return { xml: signCanonicalDocument(built.xml, key), encf: eNCF, filename: `${rnc}${eNCF}.xml` };
}

/** The RFCE of a signed full e-CF 32, signed: what recepcionfc takes. */
export function signedRfceOf(
  ecf32: { xml: string; filename: string },
  key: SigningKey,
): { xml: string; filename: string; codigoSeguridad: string } {
  const rfce = buildRfce(ecf32.xml);
  assert.ok(rfce.ok, rfce.ok ? '' : JSON.stringify(rfce.findings));
  return { xml: signCanonicalDocument(rfce.xml, key), filename: ecf32.filename, codigoSeguridad: rfce.codigoSeguridad };
}

/** Step 3's approvals: one per derived row, signed by the taxpayer as buyer. */
export function signedSetApprovals(
  cases: readonly SetCase[],
  rnc: string,
  key: SigningKey,
  fechaHora: string,
): { xml: string; encf: string }[] {
  return deriveAcecfCases(cases, rnc).map((row) => {
    const detail = row.payload['DetalleAprobacionComercial'] as Record<string, string>;
    const built = buildAcecf({
      RNCEmisor: detail['RNCEmisor'] ?? '',
      eNCF: detail['eNCF'] ?? '',
      FechaEmision: detail['FechaEmision'] ?? '',
      MontoTotal: detail['MontoTotal'] ?? '',
      RNCComprador: rnc,
      Estado: '1',
      FechaHoraAprobacionComercial: fechaHora,
    });
    assert.ok(built.ok);
    return { xml: signCanonicalDocument(built.xml, key), encf: detail['eNCF'] ?? '' };
  });
}

/** POST a document to a CerteCF (or other) service, multipart `xml`, with the session's token. */
export async function postTo(
  url: string,
  environment: string,
  path: string,
  token: string,
  xml: string,
  filename: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}/${environment}/${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: xmlForm(xml, filename),
  });
  const text = await response.text();
  return { status: response.status, body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown> };
}

export const paths = {
  reception: 'recepcion/api/facturaselectronicas',
  rfce: 'recepcionfc/api/recepcion/ecf',
  approval: 'aprobacioncomercial/api/aprobacioncomercial',
} as const;

/** The verdict consultaresultado shows for a trackId. */
export async function verdictOf(
  url: string,
  environment: string,
  token: string,
  trackId: string,
): Promise<{ codigo: string; estado: string; mensajes: { valor: string; codigo: number }[] }> {
  const response = await fetch(`${url}/${environment}/consultaresultado/api/consultas/estado?trackid=${trackId}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(response.status, 200);
  return (await response.json()) as { codigo: string; estado: string; mensajes: { valor: string; codigo: number }[] };
}

/** Sends an e-CF to CerteCF's reception and answers DGII's verdict for it. */
export async function receive(
  url: string,
  token: string,
  document: { xml: string; filename: string },
  environment = certecf,
) {
  const sent = await postTo(url, environment, paths.reception, token, document.xml, document.filename);
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  return verdictOf(url, environment, token, String(sent.body['trackId']));
}

/** A tiny PDF per printed-representation slot. */
export function printedFiles(slots: readonly string[]): { slot: string; pdfBase64: string }[] {
  return slots.map((slot) => ({
    slot,
    pdfBase64: Buffer.from(`%PDF-1.4\n% representación impresa ${slot}\n%%EOF\n`).toString('base64'),
  }));
}

export const allSlots = ['31', '32', '32<250k', '33', '34', '41', '43', '44', '45', '46', '47'] as const;
