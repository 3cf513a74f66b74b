// Issued documents written straight into the archive (rows and blobs, through the same archiving code the API uses),
// for the archive export's memory test and bench: thousands of them, which the API would take minutes to create.
// Each has a signed XML of 6 to 12 kB, 20 to 40 item lines and a signature and certificate of random base64 (which
// deflate as real ones do), and unless told otherwise a source JSON of some 2 kB.
import { randomBytes, randomUUID } from 'node:crypto';
import { formatDgiiDate, formatDgiiTimestamp } from '../../src/fiscal/dates.js';
import { encfOf } from '../../src/fiscal/encf.js';
import { archiveArtefacts } from '../../src/modules/documents/artefacts.js';
import type { FullDb } from '../../src/database.js';
import { newId } from '../../src/platform/ids.js';
import type { BlobStore } from '../../src/platform/storage/index.js';

export interface ArchivedDocumentsOptions {
  companyId: string;
  rnc: string;
  count: number;
  /** When document i was created. */
  createdAt: (i: number) => Date;
  ecfType?: string;
  /** The sequence number of the first (default 1). */
  firstNumber?: number;
  /** With the source JSON beside the signed XML (default true). */
  sourceJson?: boolean;
  /** Documents archived at once (default 64). */
  concurrency?: number;
}

function signedXml(encf: string, rnc: string, issued: Date, lines: number): string {
  const items = Array.from(
    { length: lines },
    (_, i) =>
      `<Item><NumeroLinea>${i + 1}</NumeroLinea><IndicadorFacturacion>1</IndicadorFacturacion><NombreItem>Artículo de ferretería número ${i + 1}, caja de 12</NombreItem><IndicadorBienoServicio>1</IndicadorBienoServicio><CantidadItem>${(i % 9) + 1}</CantidadItem><UnidadMedida>43</UnidadMedida><PrecioUnitarioItem>${150 + i}.00</PrecioUnitarioItem><MontoItem>${((i % 9) + 1) * (150 + i)}.00</MontoItem></Item>`,
  ).join('');
  return `<?xml version="1.0" encoding="utf-8"?><ECF><Encabezado><Version>1.0</Version><IdDoc><TipoeCF>${encf.slice(1, 3)}</TipoeCF><eNCF>${encf}</eNCF><FechaVencimientoSecuencia>31-12-2027</FechaVencimientoSecuencia></IdDoc><Emisor><RNCEmisor>${rnc}</RNCEmisor><RazonSocialEmisor>Ferretería de Prueba, S.R.L.</RazonSocialEmisor><FechaEmision>${formatDgiiDate(issued)}</FechaEmision></Emisor><Comprador><RNCComprador>131000002</RNCComprador></Comprador></Encabezado><DetallesItems>${items}</DetallesItems><FechaHoraFirma>${formatDgiiTimestamp(issued)}</FechaHoraFirma><Signature><SignatureValue>${randomBytes(256).toString('base64')}</SignatureValue><X509Certificate>${randomBytes(900).toString('base64')}</X509Certificate></Signature></ECF>`;
}

/** Inserts `count` accepted documents with their artefacts; returns their ids in creation order and their bytes. */
export async function insertArchivedDocuments(
  deps: { db: FullDb; blobs: BlobStore },
  options: ArchivedDocumentsOptions,
): Promise<{ ids: string[]; bytes: number }> {
  const type = options.ecfType ?? '31';
  const first = options.firstNumber ?? 1;
  const concurrency = options.concurrency ?? 64;
  const ids: string[] = [];
  let bytes = 0;
  for (let start = 0; start < options.count; start += concurrency) {
    const batch = Array.from({ length: Math.min(concurrency, options.count - start) }, (_, k) => start + k);
    const documents = await Promise.all(
      batch.map(async (i) => {
        const id = newId('doc');
        const createdAt = options.createdAt(i);
        const encf = encfOf(type, first + i);
        const xml = Buffer.from(signedXml(encf, options.rnc, createdAt, 20 + (i % 21)));
        const json =
          options.sourceJson === false
            ? undefined
            : Buffer.from(JSON.stringify({ eNCF: encf, lines: 20 + (i % 21), padding: 'x'.repeat(1_500) }));
        const artefacts = await archiveArtefacts(
          deps.blobs,
          { companyId: options.companyId, documentId: id, createdAt },
          { 'signed-xml': xml, ...(json === undefined ? {} : { 'source-json': json }) },
          createdAt,
          true,
        );
        bytes += xml.length + (json?.length ?? 0);
        return { id, encf, createdAt, artefacts };
      }),
    );
    await deps.db
      .insertInto('documents')
      .values(
        documents.map(({ id, encf, createdAt }) => ({
          id,
          company_id: options.companyId,
          environment: 'TEST' as const,
          ecf_type: type,
          encf,
          status: 'accepted' as const,
          origin: 'json' as const,
          fecha_emision: formatDgiiDate(createdAt),
          rnc_comprador: '131000002',
          monto_total: '1180.00',
          total_itbis: '180.00',
          security_code: 'AbC123',
          fecha_hora_firma: formatDgiiTimestamp(createdAt),
          timbre_url: `https://ecf.dgii.gov.do/testecf/ConsultaTimbre?RncEmisor=${options.rnc}&ENCF=${encf}`,
          warnings: '[]',
          created_at: createdAt,
          updated_at: createdAt,
          track_id: randomUUID(),
          dgii_estado: 'Aceptado',
          dgii_codigo: '1',
          dgii_messages: '[]',
          send_route: 'reception' as const,
          send_lease_id: null,
          send_lease_until: null,
          send_due_at: null,
          secuencia_utilizada: true,
          next_poll_at: null,
          sent_at: createdAt,
          final_at: createdAt,
          range_id: null,
        })),
      )
      .execute();
    await deps.db
      .insertInto('document_artefacts')
      .values(documents.flatMap((document) => document.artefacts))
      .execute();
    ids.push(...documents.map((document) => document.id));
  }
  return { ids, bytes };
}
