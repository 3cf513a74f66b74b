// The RFCE leg of a document's send: a type 32 under DGII's threshold goes to DGII as a summary (Informe Técnico;
// research/dgii-protocol.md §8.1), not as the e-CF. Its route is fixed when the send is claimed (documents'
// claimForSending), so it shares the send's queue (document.send) and its exactly-once rule; what differs is here:
// the bytes sent (the RFCE, built once and archived before it leaves) and how DGII is asked whether it has it
// (consultaestado by e-NCF, as an RFCE gets no trackId).
import type { DgiiClient, SendRfceOutcome, StatusByEncfOutcome } from '../../dgii/index.js';
import { buildRfce } from '../../fiscal/responses/rfce.js';
import { signXml } from '../../fiscal/xmldsig/index.js';
import type { CompaniesService } from '../companies/index.js';
import type { DocumentRow, DocumentsService } from '../documents/index.js';
import type { Verdict } from './document-changes.js';

/** What DGII knows about an e-NCF we may have sent: a trackId, a verdict, nothing, or no answer now. */
export type Resolution =
  | { kind: 'track'; trackId: string }
  | { kind: 'verdict'; verdict: Verdict }
  | { kind: 'nothing' }
  | { kind: 'unknown'; detail: string };

export function createRfceSend(deps: { dgii: DgiiClient; companies: CompaniesService; documents: DocumentsService }) {
  const { dgii, companies, documents } = deps;

  return {
    /**
     * The summary of the archived e-CF 32 to DGII, signed with the company's certificate; the full e-CF stays
     * archived and is what the integrator downloads. The RFCE is archived too, before it leaves: a resend after an
     * uncertain answer sends those same bytes. `leaving` is called just before anything goes to DGII.
     */
    async send(
      row: DocumentRow,
      file: { xml: Buffer; fileName: string },
      leaving: () => void,
    ): Promise<SendRfceOutcome> {
      const kept = await documents.artefact(row.company_id, row.id, 'rfce-xml', 1);
      let rfce: Buffer;
      if (kept.ok) {
        rfce = kept.value.bytes;
      } else {
        const summary = buildRfce(file.xml.toString('utf8'));
        if (!summary.ok)
          return {
            kind: 'rejected',
            estado: null,
            codigo: null,
            messages: summary.findings.map((finding) => ({ codigo: finding.code, valor: finding.message })),
            secuenciaUtilizada: false,
            httpStatus: 0,
            encf: row.encf,
          };
        const identity = await companies.signingIdentity(row.company_id);
        if (identity === undefined) return { kind: 'no_credentials' };
        rfce = await documents.keepArtefact(
          row.company_id,
          row.id,
          'rfce-xml',
          Buffer.from(signXml(summary.xml, identity)),
        );
      }
      leaving();
      return dgii.sendRfce(row.company_id, { xml: rfce, fileName: file.fileName });
    },

    /** What DGII knows of an RFCE sent before, asked by its e-NCF (with the buyer and the security code). */
    async resolve(row: DocumentRow, rnc: string): Promise<Resolution> {
      const status: StatusByEncfOutcome = await dgii.statusByEncf(row.company_id, {
        rncEmisor: rnc,
        eNCF: row.encf,
        rncComprador: row.rnc_comprador ?? undefined,
        securityCode: row.security_code,
      });
      if (status.kind === 'accepted' || status.kind === 'conditional' || status.kind === 'rejected')
        return { kind: 'verdict', verdict: status };
      if (status.kind === 'not_found') return { kind: 'nothing' };
      return { kind: 'unknown', detail: status.kind === 'transient' ? status.detail : status.kind };
    },
  };
}
