// What DGII judges in an e-CF once it knows the document is sound, signed and its e-NCF free: the fiscal rules and
// totals (validateEcfDocument's checks, adapted to a signed document: see structureFindings), the reference of a
// debit or credit note, and the type 32 that should have come as an RFCE. A rejection here is on content, so the
// e-NCF is burned (secuenciaUtilizada true, DT; research/dgii-protocol.md §2).
import type { EcfObject } from '../../fiscal/build/index.js';
import type { Finding } from '../../fiscal/finding.js';
import { parseEcf } from '../../fiscal/parse/index.js';
import { consumerSummaryThreshold, isConsumerSummary } from '../../fiscal/timbre-url.js';
import { checkFiscalRules } from '../../fiscal/rules/index.js';
import { checkTotals } from '../../fiscal/totals/index.js';
import type { SandboxContext } from '../http/context.js';
import type { SandboxEnvironment, SandboxMessage } from '../state/schema.js';
import { messageCodes, type DocumentFacts } from './document-checks.js';
import { isGroup, structureFindings } from './reception-structure.js';
import { wasAccepted, type Verdict } from './reception-documents.js';

function onContent(mensajes: SandboxMessage[], reason: string): Verdict {
  return { outcome: 2, secuenciaUtilizada: true, mensajes, reason };
}

/** The fiscal core's findings (English, for developers) under a Spanish lead-in as DGII words its messages. */
function findingMessage(finding: Finding, codigo: number): SandboxMessage {
  const lead = finding.severity === 'error' ? 'Error de validación' : 'Observación';
  return { valor: `${lead} en ${finding.pointer} (${finding.code}): ${finding.message}`, codigo };
}

function referencedEncf(document: EcfObject): string | undefined {
  const reference = document['InformacionReferencia'];
  if (!isGroup(reference)) return undefined;
  const value = reference['NCFModificado'];
  return typeof value === 'string' ? value : undefined;
}

export async function contentVerdict(
  context: SandboxContext,
  environment: SandboxEnvironment,
  xml: Buffer,
  facts: DocumentFacts,
): Promise<Verdict> {
  // Informe Técnico: a type 32 under DOP 250,000.00 goes to DGII only as an RFCE (research/dgii-protocol.md §8.1).
  if (facts.montoTotal !== undefined && isConsumerSummary(facts.tipoeCF, facts.montoTotal)) {
    return onContent(
      [
        {
          valor: `La Factura de Consumo Electrónica con MontoTotal menor a RD$${consumerSummaryThreshold} se envía como Resumen (RFCE) al servicio recepcionfc, no a recepción de e-CF.`,
          codigo: messageCodes.consumerSummaryRequired,
        },
      ],
      'consumer_summary_required',
    );
  }
  const parsed = parseEcf(xml.toString('utf8'));
  if (!parsed.ok) {
    // The schema check passed, so this is our model disagreeing with DGII's XSD: still a structural refusal.
    return {
      outcome: 2,
      secuenciaUtilizada: false,
      mensajes: parsed.findings.map((finding) => findingMessage(finding, messageCodes.schemaInvalid)),
      reason: 'schema',
    };
  }
  const structure = structureFindings(facts.tipoeCF, parsed.document);
  const structureErrors = structure.filter((finding) => finding.severity === 'error');
  if (structureErrors.length > 0) {
    // Per-type obligations of the Formato e-CF the XSD does not express: still the document's structure.
    return {
      outcome: 2,
      secuenciaUtilizada: false,
      mensajes: structureErrors.map((finding) => findingMessage(finding, messageCodes.schemaInvalid)),
      reason: 'structure',
    };
  }
  const findings = [
    ...structure,
    ...checkFiscalRules(parsed.document, { now: context.clock.now() }),
    ...checkTotals(parsed.document),
  ];
  const errors = findings.filter((finding) => finding.severity === 'error');
  if (errors.length > 0)
    return onContent(
      errors.map((finding) => findingMessage(finding, messageCodes.fiscalRule)),
      'fiscal_rules',
    );

  if (facts.tipoeCF === '33' || facts.tipoeCF === '34') {
    const referenced = referencedEncf(parsed.document);
    // Only an e-NCF can be checked here; a note may modify a paper NCF DGII knows by other means.
    if (
      referenced !== undefined &&
      /^E\d{12}$/.test(referenced) &&
      !(await wasAccepted(context, environment, facts.rncEmisor, referenced))
    ) {
      return onContent(
        [
          {
            valor: `El NCFModificado ${referenced} no corresponde a un e-CF aceptado del emisor ${facts.rncEmisor}.`,
            codigo: messageCodes.referenceUnknown,
          },
        ],
        'reference_unknown',
      );
    }
  }

  const observations = findings.filter((finding) => finding.severity === 'warning');
  // Informe Técnico §12: totals beyond DGII's tolerance make the e-CF "Aceptado Condicional", not rejected.
  if (observations.length > 0)
    return {
      outcome: 4,
      secuenciaUtilizada: true,
      mensajes: observations.map((finding) => findingMessage(finding, messageCodes.fiscalObservation)),
    };
  return { outcome: 1, secuenciaUtilizada: true, mensajes: [] };
}
