/** DGII's three environments and their path segment: TesteCF (pre-certification), CerteCF, eCF (production). */
export const fiscalEnvironments = ['TEST', 'CERT', 'PRODUCTION'] as const;
export type FiscalEnvironment = (typeof fiscalEnvironments)[number];

export const environmentSegment: Record<FiscalEnvironment, string> = {
  TEST: 'testecf',
  CERT: 'certecf',
  PRODUCTION: 'ecf',
};
