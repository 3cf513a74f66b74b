// The first steps every signed DGII message other than an e-CF goes through when it reaches the sandbox (ANECF,
// ACECF): the multipart upload, XML that parses safely, DGII's XSD, a valid enveloped signature, and then the
// delegation of both the session's certificate and the signer's to the taxpayer the message acts for
// (research/dgii-protocol.md §1.3, §4). Each service words the refusals its own way (DT lists them per service).
import type { FastifyRequest } from 'fastify';
import { parseXmlTree, type XmlTree } from '../../fiscal/parse/index.js';
import { verifyEnvelopedSignature } from '../../fiscal/xmldsig/index.js';
import type { SandboxContext } from '../http/context.js';
import { certificateFingerprint, isDelegated, type Session } from '../http/sessions.js';
import { readXmlUpload } from '../http/xml-upload.js';

export interface SignedUploadWording {
  notXml: string;
  /** Followed by the XSD findings. */
  badStructure: string;
  badSignature: string;
}

export type SignedUpload =
  | { ok: true; xml: string; tree: XmlTree; signerSha256: string }
  | { ok: false; status: number; reason: 'upload' | 'not_xml' | 'structure' | 'signature'; mensaje: string };

/** XSD findings shown to the client: the first few are enough to fix a document, all of them can be hundreds. */
const shownFindings = 5;

export async function readSignedUpload(
  context: SandboxContext,
  request: FastifyRequest,
  root: 'ACECF' | 'ANECF',
  wording: SignedUploadWording,
): Promise<SignedUpload> {
  const upload = await readXmlUpload(request);
  if (!upload.ok) return { ok: false, status: upload.status, reason: 'upload', mensaje: upload.mensaje };
  const parsed = parseXmlTree(upload.xml);
  if (!parsed.ok) return { ok: false, status: 400, reason: 'not_xml', mensaje: wording.notXml };
  if (parsed.root !== root)
    return {
      ok: false,
      status: 400,
      reason: 'structure',
      mensaje: `${wording.badStructure}. Se esperaba un documento ${root}.`,
    };
  const findings = context.schemas?.validate(root, upload.xml) ?? [];
  if (findings.length > 0) {
    const shown = findings.slice(0, shownFindings).map((finding) => `${finding.path}: ${finding.message}`);
    return { ok: false, status: 400, reason: 'structure', mensaje: `${wording.badStructure}. ${shown.join(' ')}` };
  }
  const verified = verifyEnvelopedSignature(upload.xml);
  if (!verified.ok) return { ok: false, status: 400, reason: 'signature', mensaje: wording.badSignature };
  return {
    ok: true,
    xml: upload.xml.toString('utf8'),
    tree: parsed.tree,
    signerSha256: certificateFingerprint(verified.certificatePem),
  };
}

/** The session's certificate must be delegated for the taxpayer (DT), and so must the one that signed the message:
 * a signature is the holder's act for the taxpayer it is delegated to (research/dgii-protocol.md §4, Certificate). */
export async function actsFor(
  context: SandboxContext,
  session: Session,
  signerSha256: string,
  rnc: string,
): Promise<boolean> {
  return (
    (await isDelegated(context, session.certificateSha256, rnc)) && (await isDelegated(context, signerSha256, rnc))
  );
}

/** Whether the RNC belongs to a registered, active electronic taxpayer. */
export async function isElectronicTaxpayer(context: SandboxContext, rnc: string): Promise<boolean> {
  const taxpayer = await context.db
    .selectFrom('sandbox_taxpayers')
    .select(['electronic', 'active'])
    .where('rnc', '=', rnc)
    .executeTakeFirst();
  return taxpayer !== undefined && taxpayer.electronic && taxpayer.active;
}
