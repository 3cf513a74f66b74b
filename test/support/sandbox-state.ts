// Documents DGII already judged, put straight into the sandbox's state: what e-CF reception stores for a document
// it received (sandbox_documents) and, when the number is burned, its sequence use. Built from a real signed e-CF,
// so the stored values (totals, dates, security code) are the ones the document carries.
import { randomUUID } from 'node:crypto';
import { buildEcf } from '../../src/fiscal/build/index.js';
import type { EcfType } from '../../src/fiscal/model/ecf-model-types.js';
import { groupsOf, parseXmlTree, textOf, type XmlTree } from '../../src/fiscal/parse/index.js';
import { signCanonicalDocument, verifyEnvelopedSignature } from '../../src/fiscal/xmldsig/index.js';
import type { SandboxEnvironment } from '../../src/sandbox/state/schema.js';
import { ecfDocuments, ownedFieldsFor } from './ecf-documents.js';
import type { RunningSandbox } from './sandbox-kit.js';
import { testSigningKey } from './xmldsig-kit.js';

export interface JudgedDocument {
  trackId: string;
  environment: SandboxEnvironment;
  channel: 'ecf' | 'rfce';
  RNCEmisor: string;
  eNCF: string;
  type: string;
  outcome: 1 | 2 | 4;
  MontoTotal: string;
  TotalITBIS: string | null;
  FechaEmision: string;
  FechaHoraFirma: string;
  RNCComprador: string | null;
  RazonSocialComprador: string | null;
  CodigoSeguridad: string;
  xml: string;
}

export interface StoreOptions {
  type: EcfType;
  /** Its sequence number; the e-NCF is E<type><number, 10 digits>. */
  sequence: number;
  environment?: SandboxEnvironment;
  channel?: 'ecf' | 'rfce';
  outcome?: 1 | 2 | 4;
  /** When the verdict shows; by default already (the sandbox clock's now). */
  readyAt?: Date;
}

function child(tree: XmlTree | undefined, ...path: string[]): XmlTree | undefined {
  return path.reduce<XmlTree | undefined>(
    (node, name) => (node === undefined ? undefined : groupsOf(node, name)[0]),
    tree,
  );
}

/** One of the realistic test e-CF (test/support/ecf-documents.ts) with the given number, signed with the test key. */
export function signedEcf(type: EcfType, sequence: number): { xml: string; eNCF: string } {
  const eNCF = `E${type}${String(sequence).padStart(10, '0')}`;
  const built = buildEcf(ecfDocuments[type], { ...ownedFieldsFor(type), eNCF });
  if (!built.ok) throw new Error(`test e-CF ${type} did not build: ${JSON.stringify(built.findings)}`);
  return { xml: signCanonicalDocument(built.xml, testSigningKey()), eNCF };
}

/** Stores a judged document as reception does: the document row, and its sequence use unless it was rejected
 * (the rejections this helper models leave the number burned only when accepted). */
export async function storeJudgedDocument(running: RunningSandbox, options: StoreOptions): Promise<JudgedDocument> {
  const { xml, eNCF } = signedEcf(options.type, options.sequence);
  const parsed = parseXmlTree(xml);
  const verified = verifyEnvelopedSignature(xml);
  if (!parsed.ok || !verified.ok) throw new Error('the test e-CF does not read back');
  const header = child(parsed.tree, 'Encabezado');
  const field = (group: string, name: string) => {
    const node = child(header, group);
    return node === undefined ? undefined : textOf(node, name);
  };
  const now = running.clock.now();
  const document: JudgedDocument = {
    trackId: randomUUID(),
    environment: options.environment ?? 'testecf',
    channel: options.channel ?? 'ecf',
    RNCEmisor: field('Emisor', 'RNCEmisor') ?? '',
    eNCF,
    type: options.type,
    outcome: options.outcome ?? 1,
    MontoTotal: field('Totales', 'MontoTotal') ?? '',
    TotalITBIS: field('Totales', 'TotalITBIS') ?? null,
    FechaEmision: field('Emisor', 'FechaEmision') ?? '',
    FechaHoraFirma: textOf(parsed.tree, 'FechaHoraFirma') ?? '',
    RNCComprador: field('Comprador', 'RNCComprador') ?? null,
    RazonSocialComprador: field('Comprador', 'RazonSocialComprador') ?? null,
    CodigoSeguridad: verified.securityCode,
    xml,
  };
  const { db } = running.sandbox.context;
  await db
    .insertInto('sandbox_documents')
    .values({
      track_id: document.trackId,
      environment: document.environment,
      channel: document.channel,
      rnc_emisor: document.RNCEmisor,
      encf: eNCF,
      type: options.type,
      received_at: now,
      ready_at: options.readyAt ?? now,
      outcome: document.outcome,
      secuencia_utilizada: document.outcome !== 2,
      messages: JSON.stringify(
        document.outcome === 4 ? [{ valor: 'Aceptado condicional: totales fuera de la tolerancia.', codigo: 0 }] : [],
      ),
      monto_total: document.MontoTotal,
      total_itbis: document.TotalITBIS,
      fecha_emision: document.FechaEmision,
      fecha_firma: document.FechaHoraFirma,
      rnc_comprador: document.RNCComprador,
      id_extranjero: null,
      security_code: document.CodigoSeguridad,
      xml,
    })
    .execute();
  if (document.outcome !== 2) {
    await db
      .insertInto('sandbox_sequence_uses')
      .values({
        environment: document.environment,
        rnc: document.RNCEmisor,
        encf: eNCF,
        used_by: document.channel,
        track_id: document.trackId,
        used_at: now,
      })
      .execute();
  }
  return document;
}
