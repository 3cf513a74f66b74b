// Delivering our ACECF to the e-CF issuer's receiver, as the receiver standard defines it (DT "Estándar de
// comunicación Emisor-Receptor"; research/dgii-protocol.md §6.1): the issuer's bases come from DGII's directory
// (urlAceptacion, and urlOpcional when it offers authentication), and the ACECF goes as multipart `xml` named
// RNCComprador + eNCF + .xml (§9.4) through the receiver client (dgii/receiver-client.ts: the address rule, the
// seed and token). The receiver answers HTTP 200 when it takes it, 400 when not.
import { receiverPaths, type DirectoryEntry, type ReceiverClient } from '../../dgii/index.js';
import type { SigningKey } from '../../fiscal/xmldsig/index.js';

export type IssuerOutcome =
  | { kind: 'delivered'; url: string; httpStatus: number }
  /** The receiver answered and refused it (HTTP 4xx): another attempt may still succeed (its e-CF not yet known). */
  | { kind: 'refused'; url: string; httpStatus: number; detail: string }
  /** No answer, or one that says nothing about the ACECF (5xx, a broken connection, a failed authentication). */
  | { kind: 'failed'; url: string | null; detail: string };

function excerpt(body: Buffer): string {
  return body.toString('utf8').replace(/\s+/g, ' ').trim().slice(0, 300);
}

/** Sends the stored ACECF bytes to the issuer's receiver named by its directory entry. */
export async function deliverToIssuer(
  client: ReceiverClient,
  input: { companyId: string; entry: DirectoryEntry; acecf: { xml: Buffer; fileName: string }; key: SigningKey },
): Promise<IssuerOutcome> {
  const { entry } = input;
  if (entry.urlAceptacion.trim() === '')
    return { kind: 'failed', url: null, detail: `DGII's directory gives ${entry.rnc} no approval URL (urlAceptacion)` };
  const answer = await client.post({
    companyId: input.companyId,
    serviceBase: entry.urlAceptacion,
    authenticationBase: entry.urlOpcional,
    path: receiverPaths.aprobacionComercial,
    file: input.acecf,
    key: input.key,
  });
  if (answer.kind === 'failed') return { kind: 'failed', url: answer.url, detail: answer.detail };
  const { url, status } = answer;
  if (status >= 200 && status < 300) return { kind: 'delivered', url, httpStatus: status };
  const detail = `HTTP ${String(status)} ${excerpt(answer.body)}`.trim();
  if (status >= 400 && status < 500) return { kind: 'refused', url, httpStatus: status, detail };
  return { kind: 'failed', url, detail };
}
