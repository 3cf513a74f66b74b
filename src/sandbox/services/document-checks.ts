// The checks DGII makes on every document it receives, e-CF (recepcion) and RFCE (recepcionfc) alike, in DGII's
// order: readable XML, schema, signature, taxpayer, delegation, e-NCF authorised and unused
// (research/dgii-protocol.md §1.3, §2, §8). One implementation for both channels, so the two cannot drift apart.
//
// Each refusal says whether the e-NCF is burned (`secuenciaUtilizada`). DGII (DT, §2): it stays usable (false) only
// when the document is refused for an invalid certificate or signature, an invalid XML structure, a signer not
// delegated, an e-NCF not authorised or expired, or an issuer not electronic, nonexistent or inactive; any other
// rejection (on content) burns it.
import { parseEcf, parseXmlTree, groupsOf, textOf, type XmlTree } from '../../fiscal/parse/index.js';
import { verifyEnvelopedSignature } from '../../fiscal/xmldsig/index.js';
import type { SchemaKind } from '../../fiscal/xsd/index.js';
import { isoDateOf } from '../../fiscal/dates.js';
import type { SandboxContext } from '../http/context.js';
import { certificateFingerprint, isDelegated } from '../http/sessions.js';
import type { SandboxEnvironment, SandboxMessage } from '../state/schema.js';
import { executePrepared } from '../../platform/db/prepared.js';
import { rangeFor, taxpayerStanding } from '../state/taxpayers.js';
import { isVoided } from '../state/voided-spans.js';
import { structureFindings } from './reception-structure.js';

/**
 * Message codes. DGII publishes no catalogue of its validation codes (research/dgii-protocol.md §2: only scattered
 * observed values), so these numbers are the sandbox's own; the texts follow DGII's Spanish wording.
 */
export const messageCodes = {
  malformedXml: 1001,
  schemaInvalid: 1002,
  signatureInvalid: 1003,
  signerNotDelegated: 1004,
  sessionNotDelegated: 1005,
  issuerUnknown: 1006,
  issuerInactive: 1007,
  issuerNotElectronic: 1008,
  encfTypeMismatch: 1009,
  encfNotAuthorised: 1010,
  encfExpired: 1011,
  encfAlreadyUsed: 1012,
  fiscalRule: 1013,
  fiscalObservation: 1014,
  referenceUnknown: 1015,
  consumerSummaryRequired: 1016,
  rfceNotConsumerSummary: 1017,
  securityCodeLength: 1018,
  injectedRejection: 1099,
} as const;

export interface Refusal {
  /** Short reason for the arrivals log (`refused:<reason>`). */
  reason: string;
  mensajes: SandboxMessage[];
  secuenciaUtilizada: boolean;
}

function refusal(reason: string, codigo: number, valor: string, secuenciaUtilizada: boolean): Refusal {
  return { reason, mensajes: [{ valor, codigo }], secuenciaUtilizada };
}

/** What the sandbox reads off a document before judging it: who issued which e-NCF, and the values queries show. */
export interface DocumentFacts {
  root: 'ECF' | 'RFCE';
  rncEmisor: string;
  encf: string;
  tipoeCF: string;
  montoTotal: string | undefined;
  totalItbis: string | undefined;
  fechaEmision: string | undefined;
  fechaFirma: string | undefined;
  rncComprador: string | undefined;
  idExtranjero: string | undefined;
  /** RFCE only: the full e-CF 32's security code it carries. */
  codigoSeguridadeCF: string | undefined;
  hasComprador: boolean;
}

export type FactsResult = { ok: true; facts: DocumentFacts } | { ok: false; mensaje: string };

function group(tree: XmlTree | undefined, name: string): XmlTree | undefined {
  return tree === undefined ? undefined : groupsOf(tree, name)[0];
}

function text(tree: XmlTree | undefined, name: string): string | undefined {
  const value = tree === undefined ? undefined : textOf(tree, name);
  return value === undefined || value === '' ? undefined : value;
}

/**
 * Reads the document (screened: size bounded, no DOCTYPE) far enough to know its issuer and e-NCF. A document that
 * cannot tell who sent it cannot be stored or queried: the caller refuses it at once, without a trackId.
 */
export function readDocumentFacts(xml: Buffer, expectedRoot: 'ECF' | 'RFCE'): FactsResult {
  const parsed = parseXmlTree(xml);
  if (!parsed.ok)
    return {
      ok: false,
      mensaje: `El archivo no es un XML válido: ${parsed.findings.map((finding) => finding.message).join('; ')}`,
    };
  if (parsed.root !== expectedRoot)
    return { ok: false, mensaje: `El elemento raíz del documento debe ser ${expectedRoot}.` };
  const encabezado = group(parsed.tree, 'Encabezado');
  const idDoc = group(encabezado, 'IdDoc');
  const emisor = group(encabezado, 'Emisor');
  const comprador = group(encabezado, 'Comprador');
  const totales = group(encabezado, 'Totales');
  const rncEmisor = text(emisor, 'RNCEmisor');
  const encf = text(idDoc, 'eNCF');
  const tipoeCF = text(idDoc, 'TipoeCF');
  if (rncEmisor === undefined || encf === undefined || tipoeCF === undefined) {
    return { ok: false, mensaje: 'El documento no indica RNCEmisor, eNCF y TipoeCF.' };
  }
  return {
    ok: true,
    facts: {
      root: expectedRoot,
      rncEmisor,
      encf,
      tipoeCF,
      montoTotal: text(totales, 'MontoTotal'),
      totalItbis: text(totales, 'TotalITBIS'),
      fechaEmision: text(emisor, 'FechaEmision'),
      fechaFirma: text(parsed.tree, 'FechaHoraFirma'),
      rncComprador: text(comprador, 'RNCComprador'),
      idExtranjero: text(comprador, 'IdentificadorExtranjero'),
      codigoSeguridadeCF: encabezado === undefined ? undefined : textOf(encabezado, 'CodigoSeguridadeCF'),
      hasComprador: comprador !== undefined,
    },
  };
}

/** DGII names the file `RNCEmisor + eNCF + .xml` (DT; research/dgii-protocol.md §9.4). */
export function filenameMismatch(filename: string, facts: DocumentFacts): string | undefined {
  const expected = `${facts.rncEmisor}${facts.encf}.xml`;
  if (filename.toLowerCase() === expected.toLowerCase()) return undefined;
  return `El nombre del archivo (${filename}) no corresponde al documento: debe ser RNCEmisor + eNCF + .xml (${expected}).`;
}

/**
 * The schema check. The official RFCE XSD makes Comprador mandatory while DGII's RFCE format marks it optional and
 * DGII forbids empty elements (research/dgii-protocol.md §8.3); our own buildRfce leaves it out when the consumer
 * is anonymous. The sandbox accepts such an RFCE: it checks it against the XSD as if an empty Comprador were there.
 */
function schemaFindings(context: SandboxContext, kind: SchemaKind, xml: Buffer, facts: DocumentFacts): string[] {
  if (context.schemas === undefined) return modelFindings(xml, facts);
  let subject: string | Buffer = xml;
  if (facts.root === 'RFCE' && !facts.hasComprador)
    subject = xml.toString('utf8').replace('</Emisor>', '</Emisor><Comprador></Comprador>');
  return context.schemas.validate(kind, subject).map((finding) => `${finding.path}: ${finding.message}`);
}

/** Without DGII's XSDs: the e-CF against our model of them; the RFCE for the fields it cannot do without. */
function modelFindings(xml: Buffer, facts: DocumentFacts): string[] {
  if (facts.root === 'RFCE') {
    const missing: [string, string | undefined][] = [
      ['FechaEmision', facts.fechaEmision],
      ['MontoTotal', facts.montoTotal],
      ['CodigoSeguridadeCF', facts.codigoSeguridadeCF],
    ];
    return missing.filter(([, value]) => value === undefined).map(([name]) => `falta el elemento ${name}`);
  }
  const parsed = parseEcf(xml.toString('utf8'));
  const findings = parsed.ok ? structureFindings(facts.tipoeCF, parsed.document) : parsed.findings;
  return findings
    .filter((finding) => finding.severity === 'error')
    .map((finding) => `${finding.pointer}: ${finding.message}`);
}

export function schemaRefusal(
  context: SandboxContext,
  kind: SchemaKind,
  xml: Buffer,
  facts: DocumentFacts,
): Refusal | undefined {
  const findings = schemaFindings(context, kind, xml, facts);
  if (findings.length === 0) return undefined;
  const against = context.schemas === undefined ? `el modelo ${kind} (sin XSD de DGII)` : `el XSD ${kind}`;
  return {
    reason: 'schema',
    mensajes: findings.slice(0, 20).map((finding) => ({
      valor: `Estructura del XML no válida según ${against}: ${finding}`,
      codigo: messageCodes.schemaInvalid,
    })),
    secuenciaUtilizada: false,
  };
}

export type SignatureCheck =
  { ok: true; certificateSha256: string; securityCode: string } | { ok: false; refusal: Refusal };

/** DGII reads documents with whitespace-only text removed; verifyEnvelopedSignature tries that form too. */
export function checkSignature(xml: Buffer): SignatureCheck {
  const verified = verifyEnvelopedSignature(xml);
  if (!verified.ok) {
    const detail = verified.problems.map((problem) => problem.message).join('; ');
    return {
      ok: false,
      refusal: refusal(
        'signature',
        messageCodes.signatureInvalid,
        `Firma digital o certificado no válido: ${detail}`,
        false,
      ),
    };
  }
  return {
    ok: true,
    certificateSha256: certificateFingerprint(verified.certificatePem),
    securityCode: verified.securityCode,
  };
}

/** Both the certificate that signed the document and the one behind the session must act for the issuer. */
export async function delegationRefusal(
  context: SandboxContext,
  signerSha256: string,
  sessionSha256: string,
  rnc: string,
): Promise<Refusal | undefined> {
  if (!(await isDelegated(context, signerSha256, rnc))) {
    return refusal(
      'signer_not_delegated',
      messageCodes.signerNotDelegated,
      `El certificado que firmó el documento no está delegado para el RNC ${rnc}.`,
      false,
    );
  }
  if (!(await isDelegated(context, sessionSha256, rnc))) {
    return refusal(
      'session_not_delegated',
      messageCodes.sessionNotDelegated,
      `El usuario autenticado no está delegado para el RNC ${rnc}.`,
      false,
    );
  }
  return undefined;
}

export async function taxpayerRefusal(context: SandboxContext, rnc: string): Promise<Refusal | undefined> {
  const taxpayer = await taxpayerStanding(context.db, rnc);
  if (taxpayer === undefined)
    return refusal('issuer_unknown', messageCodes.issuerUnknown, `El RNC emisor ${rnc} no existe.`, false);
  if (!taxpayer.active)
    return refusal('issuer_inactive', messageCodes.issuerInactive, `El RNC emisor ${rnc} no está activo.`, false);
  if (!taxpayer.electronic)
    return refusal(
      'issuer_not_electronic',
      messageCodes.issuerNotElectronic,
      `El RNC emisor ${rnc} no está autorizado como emisor electrónico.`,
      false,
    );
  return undefined;
}

/** The e-NCF must be of the document's type, inside a range authorised to the issuer here, and not expired. */
export async function sequenceRefusal(
  context: SandboxContext,
  environment: SandboxEnvironment,
  facts: DocumentFacts,
): Promise<Refusal | undefined> {
  const match = /^E(\d{2})(\d{10})$/.exec(facts.encf);
  if (match === null || match[1] !== facts.tipoeCF) {
    return refusal(
      'encf_type_mismatch',
      messageCodes.encfTypeMismatch,
      `El e-NCF ${facts.encf} no corresponde al TipoeCF ${facts.tipoeCF}.`,
      false,
    );
  }
  const range = await rangeFor(context.db, environment, facts.rncEmisor, facts.tipoeCF, Number(match[2]));
  if (range === undefined) {
    return refusal(
      'encf_not_authorised',
      messageCodes.encfNotAuthorised,
      `El e-NCF ${facts.encf} no está autorizado para el RNC ${facts.rncEmisor}.`,
      false,
    );
  }
  const expiresOn = range.expires_on;
  if (expiresOn !== null && expiresOn < isoDateOf(context.clock.now())) {
    return refusal(
      'encf_expired',
      messageCodes.encfExpired,
      `El e-NCF ${facts.encf} está vencido (la secuencia venció el ${expiresOn}).`,
      false,
    );
  }
  return undefined;
}

/**
 * An e-NCF already consumed (by an accepted document, one rejected on content, or voided) is refused. DGII's list of
 * cases that leave the sequence usable does not include this one, and the e-NCF is in fact burned, so the answer
 * says secuenciaUtilizada true; the earlier use stays the one on record.
 */
export async function usedSequenceRefusal(
  context: SandboxContext,
  environment: SandboxEnvironment,
  rnc: string,
  encf: string,
): Promise<Refusal | undefined> {
  const { db } = context;
  const used = db
    .selectFrom('sandbox_sequence_uses')
    .select('used_by')
    .where('environment', '=', environment)
    .where('rnc', '=', rnc)
    .where('encf', '=', encf);
  const taken = await executePrepared(
    db,
    db.selectNoFrom((eb) => eb.or([eb.exists(used), isVoided(db, environment, rnc, encf)]).as('taken')),
  );
  return taken.rows[0]?.taken === true ? usedRefusal(encf) : undefined;
}

export function usedRefusal(encf: string): Refusal {
  return refusal('encf_already_used', messageCodes.encfAlreadyUsed, `El e-NCF ${encf} ya fue utilizado.`, true);
}

export interface CommonChecksInput {
  environment: SandboxEnvironment;
  kind: SchemaKind;
  xml: Buffer;
  facts: DocumentFacts;
  sessionCertificateSha256: string;
}

export type CommonChecks =
  { ok: true; securityCode: string } | { ok: false; refusal: Refusal; securityCode: string | undefined };

/**
 * Schema, signature, taxpayer, delegation, sequence, already used: in this order, the first refusal wins. The
 * taxpayer comes before delegation so that an unknown issuer is named as such (nobody can be delegated for it).
 */
export async function runCommonChecks(context: SandboxContext, input: CommonChecksInput): Promise<CommonChecks> {
  const { facts } = input;
  const schema = schemaRefusal(context, input.kind, input.xml, facts);
  if (schema !== undefined) return { ok: false, refusal: schema, securityCode: undefined };
  const signature = checkSignature(input.xml);
  if (!signature.ok) return { ok: false, refusal: signature.refusal, securityCode: undefined };
  const { securityCode } = signature;
  const refused =
    (await taxpayerRefusal(context, facts.rncEmisor)) ??
    (await delegationRefusal(context, signature.certificateSha256, input.sessionCertificateSha256, facts.rncEmisor)) ??
    (await sequenceRefusal(context, input.environment, facts)) ??
    (await usedSequenceRefusal(context, input.environment, facts.rncEmisor, facts.encf));
  return refused === undefined ? { ok: true, securityCode } : { ok: false, refusal: refused, securityCode };
}

export function injectedRejection(): Refusal {
  return refusal(
    'injected',
    messageCodes.injectedRejection,
    'Rechazo inyectado por el sandbox (falla configurada para este servicio).',
    false,
  );
}
