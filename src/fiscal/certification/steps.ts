// DGII's issuer certification: the portal's 14 steps (then "Finalizado"), which are automatic (the service does
// them) and which manual (done in the portal, confirmed here by key). Sources: Proceso de Certificación para ser
// Emisor Electrónico (Jul 2025); the portal's step names and the key -> step mapping in research/certification.md §1
// and §6.2 (SPEC §3 rule 8 lists the nine manual steps, §4.8 their nine keys in the same order).

export const confirmationKeys = [
  'registrado',
  'representacion_impresa_envio',
  'representacion_impresa_validacion',
  'url_servicio_prueba',
  'url_pruebas_comunicacion',
  'inicio_prueba_aprobaciones',
  'url_produccion',
  'declaracion_jurada',
  'verificacion_estatus',
] as const;

export type ConfirmationKey = (typeof confirmationKeys)[number];

export interface CertificationStep {
  readonly number: number;
  /** The portal's name of the step. */
  readonly name: string;
  readonly mode: 'manual' | 'automatic';
  /** Manual steps only: the key that confirms it. */
  readonly key: ConfirmationKey | null;
  /** What the operator (manual) or the service (automatic) does in it. */
  readonly todo: string;
}

export const certificationSteps: readonly CertificationStep[] = [
  {
    number: 1,
    name: 'Registrado',
    mode: 'manual',
    key: 'registrado',
    todo: "Fill in the postulación in DGII's certification portal with the three receiver URLs below, sign the generated XML outside the service and upload it; confirm once DGII validated it.",
  },
  {
    number: 2,
    name: 'Pruebas de Datos e-CF',
    mode: 'automatic',
    key: null,
    todo: 'The service sends every e-CF and RFCE of the set, one at a time, notes after their invoice; upload in the portal the full signed XML of each consumer invoice under DOP 250,000 (listed below), once each.',
  },
  {
    number: 3,
    name: 'Pruebas de Datos Aprobación Comercial',
    mode: 'automatic',
    key: null,
    todo: "The service signs and sends the set's commercial approvals to DGII.",
  },
  {
    number: 4,
    name: 'Pruebas Simulación e-CF',
    mode: 'automatic',
    key: null,
    todo: "The service issues the simulation documents from the company's own data and CERT ranges; upload the full XML of each consumer invoice under DOP 250,000 in the portal.",
  },
  {
    number: 5,
    name: 'Pruebas Simulación Representación Impresa',
    mode: 'manual',
    key: 'representacion_impresa_envio',
    todo: 'Upload the printed representation (PDF) of one accepted document per slot: 31, 32 of DOP 250,000 or more, 33, 34, 41, 43, 44, 45, 46, 47, 32 under DOP 250,000 (10 MB in all).',
  },
  {
    number: 6,
    name: 'Validación Representación Impresa',
    mode: 'manual',
    key: 'representacion_impresa_validacion',
    todo: "Wait for DGII to approve the printed representations (the portal's inbox says so); on a rejection, correct them and upload again.",
  },
  {
    number: 7,
    name: 'URL Servicios Prueba',
    mode: 'manual',
    key: 'url_servicio_prueba',
    todo: 'Confirm (or correct) the test receiver URLs in the portal: "CONFIRMAR URLS".',
  },
  {
    number: 8,
    name: 'Inicio Prueba Recepción e-CF',
    mode: 'manual',
    key: 'url_pruebas_comunicacion',
    todo: 'Click "Enviar prueba de comprobantes" in the portal and confirm it here (in either order): DGII then sends e-CF to the company\'s receiver, and they count from when this step opened.',
  },
  {
    number: 9,
    name: 'Recepción e-CF',
    mode: 'automatic',
    key: null,
    todo: "The receiver answers DGII's e-CF with signed ARECFs; done when one was acknowledged and none refused since step 8.",
  },
  {
    number: 10,
    name: 'Inicio Prueba Recepción Aprobación Comercial',
    mode: 'manual',
    key: 'inicio_prueba_aprobaciones',
    todo: 'Click "Enviar prueba de aprobaciones comerciales" in the portal and confirm it here (in either order): DGII then sends ACECFs to the receiver, and they count from when this step opened.',
  },
  {
    number: 11,
    name: 'Recepción Aprobación Comercial',
    mode: 'automatic',
    key: null,
    todo: "The receiver records and answers DGII's commercial approvals; done when it answered as many as the set has.",
  },
  {
    number: 12,
    name: 'URL Servicios Producción',
    mode: 'manual',
    key: 'url_produccion',
    todo: 'Enter the three PRODUCTION receiver URLs below in the portal and confirm them.',
  },
  {
    number: 13,
    name: 'Declaración Jurada',
    mode: 'manual',
    key: 'declaracion_jurada',
    todo: 'Generate the sworn declaration in the portal, have the registered representative sign it outside the service, and upload it.',
  },
  {
    number: 14,
    name: 'Verificación Estatus',
    mode: 'manual',
    key: 'verificacion_estatus',
    todo: 'Wait for DGII\'s status check; confirm when the portal shows "Finalizado".',
  },
];

export function stepOfKey(key: string): CertificationStep | undefined {
  return certificationSteps.find((step) => step.key === key);
}

export function stepNumbered(number: number): CertificationStep {
  const step = certificationSteps.find((candidate) => candidate.number === number);
  if (step === undefined) throw new Error(`no certification step ${String(number)}`);
  return step;
}

/** The printed representations step 5 asks for, one PDF per slot (research/certification.md §1: 11 named slots, 10 MB
 * in all); `32` is a consumer invoice of DOP 250,000 or more. */
export const printedSlots = ['31', '32', '32<250k', '33', '34', '41', '43', '44', '45', '46', '47'] as const;
export const maxPrintedBytes = 10 * 1024 * 1024;
