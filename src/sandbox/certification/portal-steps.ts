// The portal's steps as the sandbox plays them (research/certification.md §1): fourteen, then 15 "Finalizado",
// strictly linear. The names are the portal's (they differ a little from PCERT's); the inbox texts DGII is known to
// send are quoted as observed (§3, "Zero-rejection guard"; §1, "Step 9 in detail"), the rest are the sandbox's.

export const portalSteps = [
  'Registrado',
  'Pruebas de Datos e-CF',
  'Pruebas de Datos Aprobación Comercial',
  'Pruebas Simulación e-CF',
  'Pruebas Simulación Representación Impresa',
  'Validación Representación Impresa',
  'URL Servicios Prueba',
  'Inicio Prueba Recepción e-CF',
  'Recepción e-CF',
  'Inicio Prueba Recepción Aprobación Comercial',
  'Recepción Aprobación Comercial',
  'URL Servicios Producción',
  'Declaración Jurada',
  'Verificación Estatus',
  'Finalizado',
] as const;

export const step = {
  registered: 1,
  dataTests: 2,
  approvalTests: 3,
  simulation: 4,
  printedUpload: 5,
  printedReview: 6,
  testUrls: 7,
  receptionTestStart: 8,
  receptionTest: 9,
  approvalTestStart: 10,
  approvalTest: 11,
  productionUrls: 12,
  swornDeclaration: 13,
  statusCheck: 14,
  finished: 15,
} as const;

export function stepName(number: number): string {
  return portalSteps[number - 1] ?? `Paso ${String(number)}`;
}

/** PCERT §2.1: a postulación may be cancelled in steps 1 to 13. */
export const lastCancellableStep = step.swornDeclaration;

/** The portal's inbox. */
export const inboxTexts = {
  // DGII's wording, quoted by BF from the portal (research §3).
  dataTestsReset: 'Las pruebas de datos de eCF han sido reiniciadas debido a que se han rechazado comprobantes',
  // WL's inbox gives the beginning; the rest follows the step-2 message.
  simulationReset: 'Las pruebas de simulación de eCF han sido reiniciadas debido a que se han rechazado comprobantes',
  duplicateUpload: (encf: string) => `La factura de consumo ${encf} ya había sido cargada y aceptada previamente.`,
  dataTestsDone: 'Las pruebas de datos de eCF han sido completadas satisfactoriamente.',
  approvalTestsDone: 'Las pruebas de datos de aprobación comercial han sido completadas satisfactoriamente.',
  simulationDone: 'Las pruebas de simulación de eCF han sido completadas satisfactoriamente.',
  printedRejected: (observations: string) =>
    `La representación impresa ha sido rechazada. Observaciones: ${observations}`,
  printedApproved: 'La representación impresa ha sido aprobada.',
  receptionTestFailed: (detail: string) => `La prueba de recepción de e-CF no fue satisfactoria: ${detail}`,
  receptionTestDone: 'La prueba de recepción de e-CF fue completada satisfactoriamente.',
  approvalTestFailed: (detail: string) =>
    `La prueba de recepción de aprobaciones comerciales no fue satisfactoria: ${detail}`,
  approvalTestDone: 'La prueba de recepción de aprobaciones comerciales fue completada satisfactoriamente.',
  finished: 'Su postulación ha finalizado: ha sido certificado como emisor electrónico.',
} as const;

/** DGII's own messages for what steps 2 and 4 reject beyond the usual checks (research §3). */
export const dgiiCertificationMessages = {
  referenceNotIssued: { codigo: 614, valor: 'El eNCF modificado no ha sido emitido' },
  sequenceUsed: { codigo: 1209, valor: 'Este número de secuencia ya ha sido utilizado' },
  // WL (research §4): DGII's refusal of an ACECF outside step 3; it resets nothing.
  notInApprovalStage: (rnc: string) =>
    `El contribuyente de rnc ${rnc} no se encuentra en la etapa de prueba de datos de aprobación comercial`,
} as const;

/**
 * Messages only the emulator words (DGII's are not known): marked so that nobody takes them for DGII's text. Their
 * codes are the sandbox's own, like document-checks.ts's.
 */
export const emulatorMarker = '[sandbox]';
export const emulatorCodes = { notInSet: 1101, differsFromSet: 1102, placeholderIssuer: 1103 } as const;
