// The ARECF a buyer's receiver answers to an e-CF we delivered (Informe Técnico §8 step 4; Formato Acuse de Recibo
// v1.0; research/dgii-protocol.md §6.2), judged before anything is made of it: well-formed XML rooted at ARECF, valid
// per DGII's XSD when the schemas are loaded, signed with a signature that verifies, its fields in a combination DGII
// allows, and about THIS e-CF (RNCEmisor, eNCF) and this buyer (RNCComprador). The receiver signs with its own
// certificate: who holds it is DGII's delegation to check, not ours, so the signer is reported, not judged.
// An answer in the compact form (fiscal/xml/compact-xml.ts: what our signer, DGII's and the sandbox's write) is
// screened and scanned once for the tree, the XSD and the signature; one whose shape plainly follows ARECF.xsd
// (plainlyFollowsXsd) skips libxml2, whose validation was a third of the judgement's CPU per delivery.
import { compactXmlTree, groupsOf, parseXmlTree, textOf } from '../parse/index.js';
import { scanCompactXml, type CompactGroup } from '../xml/compact-xml.js';
import { screenUntrustedXml } from '../xml/screen-untrusted-xml.js';
import type { SchemaSet } from '../xsd/index.js';
import { verifyCompactEnvelopedSignature, verifyEnvelopedSignature } from '../xmldsig/index.js';
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
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const screened = screenUntrustedXml(bytes);
  const compact = screened.ok ? scanCompactXml(screened.text) : undefined;
  const parsed = compact === undefined ? parseXmlTree(bytes) : compactXmlTree(compact);
  if (!parsed.ok) return invalid(`the answer is not well-formed XML (${parsed.findings[0]?.message ?? 'unreadable'})`);
  if (parsed.root !== 'ARECF') return invalid(`the answer is a ${parsed.root}, not an ARECF`);
  const text = compact?.text ?? bytes.toString('utf8');
  const schemaFindings =
    compact !== undefined && plainlyFollowsXsd(compact.content) ? [] : (schemas?.validate('ARECF', text) ?? []);
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
  const verified =
    compact === undefined ? verifyEnvelopedSignature(text) : verifyCompactEnvelopedSignature(bytes, compact);
  if (!verified.ok)
    return invalid(`the ARECF's signature does not verify: ${verified.problems[0]?.message ?? 'no valid signature'}`);
  return { kind: 'valid', arecf, signerCertificatePem: verified.certificatePem };
}

const rnc = /^(?:[0-9]{11}|[0-9]{9})$/;
/**
 * ARECF.xsd's DetalleAcusedeRecibo, each child in its order with the one spelling of its type this check takes: the
 * XSD's patterns, anchored, over text with nothing to collapse or decode (Version is an xs:decimal whose value must
 * be 1.0: "1.0" alone is taken here, "1" or " 1.00 " go to libxml2).
 */
const detailChildren: readonly (readonly [name: string, lexical: RegExp, optional?: true])[] = [
  ['Version', /^1\.0$/],
  ['RNCEmisor', rnc],
  ['RNCComprador', rnc],
  ['eNCF', /^(?:[a-zA-Z0-9]{13}|[a-zA-Z0-9]{11}|[a-zA-Z0-9]{9})$/],
  ['Estado', /^[01]$/],
  ['CodigoMotivoNoRecibido', /^[1-4]$/, true],
  [
    'FechaHoraAcuseRecibo',
    /^(?:3[01]|[12][0-9]|0[1-9])-(?:1[0-2]|0[1-9])-[0-9]{4} (?:2[0-3]|[01]?[0-9]):(?:[0-5]?[0-9]):(?:[0-5]?[0-9])$/,
  ],
];

/**
 * Whether the compact content of an ARECF root (no attributes below the root, no comments, no namespace but
 * prefixed declarations on the root: compact-xml.ts) follows ARECF.xsd, in the one plain shape every signer
 * writes: DetalleAcusedeRecibo and then, at most, the Signature (the XSD's xs:any), no text between elements. It
 * only ever says yes where libxml2 would find nothing (arecf-answer.test.ts holds the two side by side); every
 * other shape, valid or not, is left to libxml2.
 */
export function plainlyFollowsXsd(content: CompactGroup): boolean {
  const top = Object.keys(content);
  if (top[0] !== 'DetalleAcusedeRecibo' || top.length > 2 || (top.length === 2 && top[1] !== 'Signature')) return false;
  const detail = content['DetalleAcusedeRecibo'];
  if (typeof detail !== 'object' || Array.isArray(detail)) return false;
  const names = Object.keys(detail);
  let at = 0;
  for (const [name, lexical, optional] of detailChildren) {
    if (names[at] !== name) {
      if (optional === true) continue;
      return false;
    }
    const value = detail[name];
    if (typeof value !== 'string' || !lexical.test(value)) return false;
    at++;
  }
  return at === names.length;
}
