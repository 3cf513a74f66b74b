// An e-CF another taxpayer sent to a receiver (DT "Estándar de comunicación Emisor-Receptor"; research/
// dgii-protocol.md §6.1, §6.2): the identifiers its ARECF must repeat, and the receiver's verdict, checked in the
// order the standard lists the reasons of Estado 1 (CodigoMotivoNoRecibido): 1 specification error (unreadable, not
// of a type sent between taxpayers, against its XSD), 2 digital signature, 3 duplicate, 4 buyer RNC. The one way
// both the service's receiver and the sandbox's counterpart judge what they are sent. Pure: the duplicate check is
// the caller's (it knows where earlier receptions are kept).
import { textAt } from '../rules/document-view.js';
import { parseCompactEcf, parseEcf } from '../parse/index.js';
import type { NotReceivedReason } from '../responses/arecf.js';
import { scanCompactXml } from '../xml/compact-xml.js';
import { screenUntrustedXml } from '../xml/screen-untrusted-xml.js';
import { verifyCompactEnvelopedSignature, verifyEnvelopedSignature } from '../xmldsig/index.js';
import { detectKind, type SchemaSet } from '../xsd/index.js';

/** The types another taxpayer may be sent (DT, simulator: 32, 41, 43, 45, 46 and 47 are never sent). */
export const typesSentToReceivers = ['31', '33', '34', '44'] as const;
export type TypeSentToReceiver = (typeof typesSentToReceivers)[number];

export function isTypeSentToReceiver(value: string): value is TypeSentToReceiver {
  return (typesSentToReceivers as readonly string[]).includes(value);
}

export interface ReceivedIdentifiers {
  RNCEmisor: string;
  eNCF: string;
}

const rncPattern = /^(\d{9}|\d{11})$/;
const encfPattern = /^[A-Za-z0-9]{13}$/;

const rncEmisorElement = /<RNCEmisor>\s*([^<\s]+)\s*<\/RNCEmisor>/;
const encfElement = /<eNCF>\s*([^<\s]+)\s*<\/eNCF>/;

/**
 * The identifiers the ARECF must repeat: the RNCEmisor and eNCF elements of the document's text (found even when it
 * is not a valid e-CF), else its file name (`RNCEmisor+eNCF.xml`). The ARECF's XSD requires them even when the e-CF
 * was unreadable, and the standard has no "unknown"; when nothing names them, zeros keep the acknowledgement valid
 * (DGII's own choice here is not public).
 */
export function identifiersOf(text: string, filename: string): ReceivedIdentifiers {
  const fromText = (element: RegExp, pattern: RegExp): string | undefined => {
    const value = element.exec(text)?.[1];
    return value !== undefined && pattern.test(value) ? value : undefined;
  };
  const fromName = /^(\d{9}|\d{11})([A-Za-z0-9]{13})\.xml$/i.exec(filename);
  return {
    RNCEmisor: fromText(rncEmisorElement, rncPattern) ?? fromName?.[1] ?? '000000000',
    eNCF: fromText(encfElement, encfPattern) ?? fromName?.[2] ?? 'E000000000000',
  };
}

/** What the receiver could read of an e-CF it was sent (any of it may be missing from a bad one). */
export interface ReceivedFacts {
  ecfType: string | undefined;
  rncComprador: string | undefined;
  razonSocialEmisor: string | undefined;
  fechaEmision: string | undefined;
  montoTotal: string | undefined;
  totalItbis: string | undefined;
}

/**
 * `received`: Estado 0. `not_received`: Estado 1 with the reason; `outcome` names the check that failed.
 * `unreadable`: not XML at all, hostile (a DTD), or not an ECF document; a receiver may refuse it without an ARECF.
 */
export type ReceptionVerdict =
  | { kind: 'received'; facts: ReceivedFacts }
  | { kind: 'not_received'; reason: NotReceivedReason; outcome: NotReceivedOutcome; facts: ReceivedFacts | undefined }
  | { kind: 'unreadable'; message: string };

export type NotReceivedOutcome =
  | 'not_received:specification'
  | 'not_received:type_not_sent_to_receivers'
  | 'not_received:xsd'
  | 'not_received:signature'
  | 'not_received:duplicate'
  | 'not_received:buyer';

export interface ReceptionChecks {
  /** DGII's XSDs; undefined: the e-CF model alone checks the document. */
  schemas: SchemaSet | undefined;
  /** The receiving taxpayer's RNC: the e-CF's RNCComprador must be it. */
  receiverRnc: string;
  /** Whether this issuer's e-NCF was already received (Estado 0) by this receiver. */
  alreadyReceived(identifiers: ReceivedIdentifiers): Promise<boolean>;
}

/** Findings of parseEcf that mean "this is not an e-CF document at all" rather than "an e-CF with errors". */
const unreadableCodes: ReadonlySet<string> = new Set([
  'doctype_not_allowed',
  'too_large',
  'shape_not_allowed',
  'malformed_xml',
  'not_utf8',
  'empty',
  'encoding_unsupported',
  'not_an_ecf',
]);

function factsOf(document: unknown): ReceivedFacts {
  return {
    ecfType: textAt(document, ['Encabezado', 'IdDoc', 'TipoeCF']),
    rncComprador: textAt(document, ['Encabezado', 'Comprador', 'RNCComprador']),
    razonSocialEmisor: textAt(document, ['Encabezado', 'Emisor', 'RazonSocialEmisor']),
    fechaEmision: textAt(document, ['Encabezado', 'Emisor', 'FechaEmision']),
    montoTotal: textAt(document, ['Encabezado', 'Totales', 'MontoTotal']),
    totalItbis: textAt(document, ['Encabezado', 'Totales', 'TotalITBIS']),
  };
}

/**
 * What checks 1 and 2 say of `xml` (specification and XSD, then signature): the part of the verdict that needs only
 * the bytes, and all of its cost. Pure and synchronous, so a large document can be read on another thread
 * (platform/xml-checks): its result is plain data.
 */
export type ReceptionReading =
  Exclude<ReceptionVerdict, { kind: 'received' }> | { kind: 'readable'; facts: ReceivedFacts };

export function readReceivedEcf(xml: Uint8Array, schemas: SchemaSet | undefined): ReceptionReading {
  // Read once: bytes that pass the screen as UTF-8 and scan compact (fiscal/xml/compact-xml.ts) serve both the
  // reading and the signature check; anything else takes the general parsers, each judging as it always has.
  const bytes = Buffer.from(xml.buffer, xml.byteOffset, xml.byteLength);
  const screened = screenUntrustedXml(bytes);
  const compact = screened.ok ? scanCompactXml(screened.text) : undefined;
  const parsed = (compact === undefined ? undefined : parseCompactEcf(compact)) ?? parseEcf(bytes.toString('utf8'));
  if (!parsed.ok) {
    const first = parsed.findings[0];
    if (first !== undefined && first.pointer === '/' && unreadableCodes.has(first.code))
      return { kind: 'unreadable', message: first.message };
    return { kind: 'not_received', reason: '1', outcome: 'not_received:specification', facts: undefined };
  }
  const facts = factsOf(parsed.document);
  const notReceived = (reason: NotReceivedReason, outcome: NotReceivedOutcome): ReceptionReading => ({
    kind: 'not_received',
    reason,
    outcome,
    facts,
  });
  if (!isTypeSentToReceiver(facts.ecfType ?? '')) return notReceived('1', 'not_received:type_not_sent_to_receivers');
  const kind = detectKind(bytes);
  if (kind === undefined) return notReceived('1', 'not_received:specification');
  if (schemas !== undefined && schemas.validate(kind, bytes).length > 0) return notReceived('1', 'not_received:xsd');
  const signature =
    compact === undefined ? verifyEnvelopedSignature(bytes) : verifyCompactEnvelopedSignature(bytes, compact);
  if (!signature.ok) return notReceived('2', 'not_received:signature');
  return { kind: 'readable', facts };
}

/** The receiver's verdict on what readReceivedEcf read: checks 3 (duplicate) and 4 (buyer) complete it. */
export async function judgeReading(
  reading: ReceptionReading,
  identifiers: ReceivedIdentifiers,
  checks: Omit<ReceptionChecks, 'schemas'>,
): Promise<ReceptionVerdict> {
  if (reading.kind !== 'readable') return reading;
  const { facts } = reading;
  if (await checks.alreadyReceived(identifiers))
    return { kind: 'not_received', reason: '3', outcome: 'not_received:duplicate', facts };
  if (facts.rncComprador !== checks.receiverRnc)
    return { kind: 'not_received', reason: '4', outcome: 'not_received:buyer', facts };
  return { kind: 'received', facts };
}

/** The receiver's verdict on `xml`, its checks in the standard's order (1, 2, 3, 4), all on this thread. */
export async function judgeReceivedEcf(
  xml: Buffer,
  identifiers: ReceivedIdentifiers,
  checks: ReceptionChecks,
): Promise<ReceptionVerdict> {
  return judgeReading(readReceivedEcf(xml, checks.schemas), identifiers, checks);
}
