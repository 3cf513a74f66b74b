// Step 3, "Pruebas de Datos Aprobación Comercial" (research/certification.md §2 "ACECF workbook", §4): the taxpayer
// signs, as buyer, approvals of mirror images of its own set e-CF, and DGII can only check them against the ACECF
// rows it derives from the set. Outside step 3 DGII refuses an ACECF of a postulación's taxpayer with its phase
// message and resets nothing (WL, §4). FechaHoraAprobacionComercial is the signer's, so it is free.
import Big from 'big.js';
import { deriveAcecfCases } from '../../fiscal/certification/index.js';
import type { ReceivedAcecf } from '../../fiscal/responses/acecf-read.js';
import type { SandboxContext } from '../http/context.js';
import { setById } from '../state/cert-sets.js';
import { postulacionInProgress } from '../state/postulaciones.js';
import type { SandboxEnvironment } from '../state/schema.js';
import { dgiiCertificationMessages, emulatorMarker, step } from './portal-steps.js';
import { textAt } from './set-composition.js';
import { countAccepted, momentOf } from './step-progress.js';

export interface StageVerdict {
  status: number;
  accepted: boolean;
  mensaje: string[];
  note: string;
  /** Once the approval is stored: count it. */
  settle?: () => Promise<void>;
}

/** Amounts as DGII's workbook holds them (numeric cells, research §2): compared to two decimals. */
function sameAmount(a: string | undefined, b: string): boolean {
  try {
    return a !== undefined && new Big(a).toFixed(2) === new Big(b).toFixed(2);
  } catch {
    return false;
  }
}

type Compared = Pick<
  ReceivedAcecf,
  'RNCEmisor' | 'eNCF' | 'FechaEmision' | 'MontoTotal' | 'RNCComprador' | 'Estado'
> & { Version: string | undefined };

function mismatchOf(approval: Compared, row: Record<string, unknown>): string | undefined {
  const detail = row['DetalleAprobacionComercial'];
  for (const field of [
    'Version',
    'RNCEmisor',
    'eNCF',
    'FechaEmision',
    'MontoTotal',
    'RNCComprador',
    'Estado',
  ] as const) {
    const expected = textAt(detail, [field]) ?? '';
    const given = approval[field];
    const same = field === 'MontoTotal' ? sameAmount(given, expected) : given === expected;
    if (!same)
      return `${emulatorMarker} La aprobación comercial de ${approval.eNCF} no coincide con el set de aprobaciones en ${field}: el set dice ${JSON.stringify(expected)}, la aprobación ${JSON.stringify(given ?? null)}.`;
  }
  return undefined;
}

/**
 * DGII's verdict on an ACECF whose buyer (the taxpayer who signs it) has a postulación in progress in CerteCF;
 * undefined when certification has nothing to say (then the ACECF is judged as usual).
 */
export async function approvalStageVerdict(
  context: SandboxContext,
  environment: SandboxEnvironment,
  approval: Compared,
): Promise<StageVerdict | undefined> {
  if (environment !== 'certecf') return undefined;
  const postulacion = await postulacionInProgress(context.db, approval.RNCComprador);
  if (postulacion === undefined) return undefined;
  if (postulacion.step !== step.approvalTests) {
    return {
      status: 400,
      accepted: false,
      mensaje: [dgiiCertificationMessages.notInApprovalStage(approval.RNCComprador)],
      note: 'refused:certification_stage',
    };
  }
  const cases = (await setById(context.db, postulacion.set_id))?.cases ?? [];
  const row = deriveAcecfCases(cases, postulacion.rnc).find(
    (candidate) => textAt(candidate.payload, ['DetalleAprobacionComercial', 'eNCF']) === approval.eNCF,
  );
  if (row === undefined) {
    return {
      status: 400,
      accepted: false,
      mensaje: [
        `${emulatorMarker} La aprobación comercial de ${approval.eNCF} no corresponde a ninguna fila del set de aprobaciones de la postulación.`,
      ],
      note: 'refused:not_in_set',
    };
  }
  const mismatch = mismatchOf(approval, row.payload);
  if (mismatch !== undefined)
    return { status: 400, accepted: false, mensaje: [mismatch], note: 'refused:differs_from_set' };
  const moment = momentOf(postulacion);
  return {
    status: 200,
    accepted: true,
    mensaje: [],
    note: 'accepted',
    settle: () =>
      countAccepted(context, moment, { kind: 'acecf', encf: approval.eNCF, type: approval.eNCF.slice(1, 3) }),
  };
}
