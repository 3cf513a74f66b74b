// The ARECF a buyer's receiver answers to an e-CF we delivered (Informe Técnico §8 step 4; Formato Acuse de Recibo
// v1.0; research/dgii-protocol.md §6.2), judged before anything is made of it: well-formed XML rooted at ARECF, valid
// per DGII's XSD when the schemas are loaded, signed with a signature that verifies, its fields in a combination DGII
// allows, and about THIS e-CF (RNCEmisor, eNCF) and this buyer (RNCComprador). The receiver signs with its own
// certificate: who holds it is DGII's delegation to check, not ours, so the signer is reported, not judged.
import { groupsOf, parseXmlTree, textOf } from '../parse/index.js';
import type { SchemaSet } from '../xsd/index.js';
import { verifyEnvelopedSignature } from '../xmldsig/index.js';
import { readArecf, type Arecf } from './arecf.js';

export type ArecfAnswer =
  | { kind: 'valid'; arecf: Arecf; signerCertificatePem: string }
  /** Not an acknowledgement of this e-CF: why, in words. */
  | { kind: 'invalid'; reason: string };

export function judgeArecfAnswer(
  body: Uint8Array,
  expected: { RNCEmisor: string; RNCComprador: string; eNCF: string },
  schemas: SchemaSet | undefined,
): ArecfAnswer {
  const invalid = (reason: string): ArecfAnswer => ({ kind: 'invalid', reason });
  const parsed = parseXmlTree(body);
  if (!parsed.ok) return invalid(`the answer is not well-formed XML (${parsed.findings[0]?.message ?? 'unreadable'})`);
  if (parsed.root !== 'ARECF') return invalid(`the answer is a ${parsed.root}, not an ARECF`);
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  const schemaFindings = schemas?.validate('ARECF', text) ?? [];
  if (schemaFindings.length > 0)
    return invalid(`the ARECF does not follow DGII's XSD: ${schemaFindings[0]?.message ?? 'invalid'}`);
  const detail = groupsOf(parsed.tree, 'DetalleAcusedeRecibo')[0];
  if (detail === undefined) return invalid('the ARECF has no DetalleAcusedeRecibo');
  const names = ['RNCEmisor', 'RNCComprador', 'eNCF', 'Estado', 'CodigoMotivoNoRecibido', 'FechaHoraAcuseRecibo'];
  const read = readArecf(Object.fromEntries(names.map((name) => [name, textOf(detail, name)])));
  if (!read.ok) return invalid(`the ARECF's fields are not as DGII allows: ${read.findings[0]?.message ?? ''}`.trim());
  const arecf = read.value;
  for (const field of ['RNCEmisor', 'RNCComprador', 'eNCF'] as const)
    if (arecf[field] !== expected[field])
      return invalid(`the ARECF is about another e-CF: ${field} ${arecf[field]}, not ${expected[field]}`);
  const verified = verifyEnvelopedSignature(text);
  if (!verified.ok)
    return invalid(`the ARECF's signature does not verify: ${verified.problems[0]?.message ?? 'no valid signature'}`);
  return { kind: 'valid', arecf, signerCertificatePem: verified.certificatePem };
}
