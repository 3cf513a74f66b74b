import type { Platform, ModuleParts } from '../module.js';
import type { AppRoute } from '../../platform/http/route.js';
import { ecfDocumentContractSchemas } from '../catalogues/index.js';
import type { CompaniesService } from '../companies/index.js';
import type { PrintingService } from '../printing/index.js';
import type { SequencesService } from '../sequences/index.js';
import { createReceivedApprovals, type ReceivedApprovals } from './received-approvals.js';
import { documentViewRoutes } from './document-views.routes.js';
import { documentJobs } from './documents.jobs.js';
import { documentRoutes } from './documents.routes.js';
import { documentSchemas } from './documents.schema.js';
import { createDocumentsService, type DocumentsService } from './documents.service.js';
import { createIdempotency } from './idempotency.js';
import { createSignedXmlIntake } from './signed-xml-intake.js';

export function documentsModule(
  { db, clock, blobs, abandonedWrites, environment, xmlChecks, schemas }: Platform,
  needs: {
    companies: CompaniesService;
    sequences: SequencesService;
    printing: PrintingService;
    certificationApprovalTest: (companyId: string, encf: string) => Promise<boolean>;
  },
): ModuleParts & { documents: DocumentsService; receivedApprovals: ReceivedApprovals } {
  const { companies, sequences } = needs;
  const documents = createDocumentsService({
    db,
    clock,
    blobs,
    abandonedWrites,
    environment,
    companies,
    sequences,
    xmlChecks,
  });
  const receivedApprovals = createReceivedApprovals({
    db,
    clock,
    blobs,
    environment,
    companies,
    schemas,
    certificationApprovalTest: needs.certificationApprovalTest,
  });
  const jobs = documentJobs({ db, clock });
  return {
    documents,
    receivedApprovals,
    schemas: documentSchemas,
    contractSchemas: ecfDocumentContractSchemas,
    routes: [
      ...documentRoutes(
        documents,
        createIdempotency({ db, clock, environment }),
        createSignedXmlIntake({ db, clock, blobs, environment, companies, sequences, xmlChecks }),
      ),
      ...documentViewRoutes(documents, needs.printing),
    ] as AppRoute[],
    jobs: Object.values(jobs),
  };
}
