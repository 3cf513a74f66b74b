// The composition root: wires the modules onto the platform adapters (src/open-platform.ts) and into the roles a
// process runs (API, worker, scheduler).
import { demoRnc } from './demo.js';
import { apiKeysModule } from './modules/api-keys/index.js';
import { archiveModule } from './modules/archive/index.js';
import { buyerDeliveryModule, buyerDeliveryTarget } from './modules/buyer-delivery/index.js';
import { cataloguesModule } from './modules/catalogues/index.js';
import { receivedApprovalTestOf, certificationModule } from './modules/certification/index.js';
import { companiesModule } from './modules/companies/index.js';
import { consoleModule } from './modules/console/index.js';
import { controlPlaneModule } from './modules/control-plane/index.js';
import { dgiiSessionsModule } from './modules/dgii-sessions/index.js';
import { documentsModule, documentUsingNumber, firstDocumentNumberedIn } from './modules/documents/index.js';
import { roleWorkOf, type ModuleParts } from './modules/module.js';
import { openPlatform } from './open-platform.js';
import { opsModule } from './modules/ops/index.js';
import { printingModule } from './modules/printing/index.js';
import { receivedModule } from './modules/received/index.js';
import { receiverModule } from './modules/receiver/index.js';
import { sendingModule } from './modules/sending/index.js';
import { sequencesModule } from './modules/sequences/index.js';
import { cachedDirectory, taxpayersModule } from './modules/taxpayers/index.js';
import { webhooksModule } from './modules/webhooks/index.js';
import { Closers } from './platform/closers.js';
import { registerRoutes } from './platform/http/route.js';
import { createHttpServer } from './platform/http/server.js';
import { openQueue } from './platform/queue/queue.js';
import { createSandboxRegistration } from './sandbox-registration.js';
import { schedulesOf } from './schedules.js';
import { version } from './version.js';

import type { Application, BuildOptions, Services } from './application.js';

export { allRoles, type Application, type BuildOptions, type Roles, type Services } from './application.js';

export async function buildApplication(options: BuildOptions): Promise<Application> {
  const { config, roles } = options;
  const closers = new Closers();
  try {
    const { platform, database, metrics, dgiiUrls } = await openPlatform(options, closers, (companyId) =>
      dgiiSessions.credentialsOf(companyId),
    );
    const { db, environment, clock, log, cache, blobs, schemas, dgii } = platform;

    // The modules, each built from the platform and the services of those above it. DGII's directory, cached, is
    // shared by the taxpayer lookup and the deliveries to other taxpayers' receivers.
    const directory = cachedDirectory({
      source: (companyId, rnc) => dgii.directory(companyId, rnc),
      cache,
      clock,
      namespace: `${environment} ${dgiiUrls.baseUrl}`,
    });
    const companies = companiesModule(platform);
    const apiKeys = apiKeysModule(platform, { companies: companies.companies });
    const controlPlane = controlPlaneModule(platform, {
      companies: companies.companies,
      companyChanged: async (companyId) => {
        for (const part of parts) part.forgetCompany?.(companyId);
        await sandboxRegistration?.companyChanged(companyId);
      },
    });
    // Sequences asks documents whether a number is used through these reads: documents imports sequences.
    const sequences = sequencesModule(platform, {
      companies: companies.companies,
      issued: { numbered: documentUsingNumber, firstNumberedIn: firstDocumentNumberedIn },
    });
    const printing = printingModule(platform, {
      settingsOf: (companyId) => companies.companies.printSettingsOf(companyId),
    });
    const documents = documentsModule(platform, {
      companies: companies.companies,
      sequences: sequences.sequences,
      printing: printing.printing,
      certificationApprovalTest: receivedApprovalTestOf(db, environment),
    });
    const { dgiiSessions, ...sessionParts } = dgiiSessionsModule(platform, { companies: companies.companies });
    const sending = sendingModule(platform, {
      companies: companies.companies,
      documents: documents.documents,
      deliverAccepted: buyerDeliveryTarget,
    });
    const buyerDelivery = buyerDeliveryModule(platform, {
      companies: companies.companies,
      documents: documents.documents,
      printing: printing.printing,
      directory,
      metrics,
    });
    const received = receivedModule(platform, {
      companies: companies.companies,
      printing: printing.printing,
      directory,
    });
    const archive = archiveModule(platform, { metrics });
    // `emisorreceptor`: the configured company, else the demo company when the sandbox is embedded.
    const receiver = receiverModule(platform, {
      received: received.received,
      receivedApprovals: documents.receivedApprovals,
      localCompany: config.receiverLocalCompany ?? (config.dgii.sandbox === 'embedded' ? demoRnc : undefined),
    });
    // Only with the sandbox in this process: it then plays DGII's registry for every company served here.
    const sandboxRegistration =
      dgiiUrls.sandbox === undefined
        ? undefined
        : createSandboxRegistration({
            sandbox: dgiiUrls.sandbox,
            environment,
            companies: companies.companies,
            receiverBaseOf: (companyId, instanceBaseUrl) => receiver.receiverBaseOf(companyId, instanceBaseUrl),
            forgetDirectoryEntry: (rnc) => directory.forget(rnc),
            log,
          });
    const queue = await openQueue({
      executor: database.executor,
      db,
      roles,
      log,
      metrics,
      maintenanceIntervalSeconds: config.queue.maintenanceIntervalSeconds,
    });
    closers.add(() => queue.stop());
    const parts: ModuleParts[] = [
      opsModule({
        probes: {
          database: (ms) => database.probe(ms),
          queue: (ms) => queue.probe(ms),
          cache: (ms) => cache.probe(ms),
          storage: (ms) => blobs.probe(ms),
        },
        metrics,
      }),
      companies,
      printing,
      controlPlane,
      apiKeys,
      sequences,
      documents,
      sending,
      buyerDelivery,
      sessionParts,
      webhooksModule(platform),
      received,
      certificationModule(platform, {
        companies: companies.companies,
        documents: documents.documents,
        sending: sending.sending,
        dgiiSessions,
        printing: printing.printing,
      }),
      cataloguesModule({ companies: companies.companies }),
      taxpayersModule(platform, { directory }),
      archive,
      receiver,
      consoleModule(platform),
    ];

    // The queue runs the jobs and schedules of the roles this process has, then the loops start.
    const jobs = parts.flatMap((part) => part.jobs ?? []);
    const schedules = schedulesOf(config, jobs);
    await queue.run({ jobs, schedules });
    for (const loop of parts.flatMap((part) => part.loops ?? [])) {
      if (!roles[loop.role]) continue;
      loop.start();
      closers.add(() => loop.stop());
    }

    let http: Application['http'];
    if (roles.http) {
      const server = await createHttpServer({
        config,
        log,
        metrics,
        authenticator: apiKeys.apiKeys.authenticator,
        clock,
        version,
        contractSchemas: parts.flatMap((part) => part.contractSchemas ?? []),
      });
      for (const part of parts) for (const schema of part.schemas ?? []) server.app.addSchema(schema);
      registerRoutes(
        server.app,
        parts.flatMap((part) => part.routes ?? []),
        server.catalogue,
      );
      for (const part of parts) await part.registerHttp?.(server.app, server.catalogue);
      await server.app.ready();
      closers.add(() => server.app.close());
      http = server;
    }

    const services: Services = {
      companies: companies.companies,
      apiKeys: apiKeys.apiKeys,
      controlPlane: controlPlane.controlPlane,
      sequences: sequences.sequences,
      documents: documents.documents,
      receivedApprovals: documents.receivedApprovals,
      sending: sending.sending,
      received: received.received,
      archive: archive.archive,
    };
    return {
      config,
      log,
      database,
      queue,
      cache,
      blobs,
      schemas,
      services,
      dgii: dgiiUrls,
      sandboxRegistration,
      dgiiClient: dgii,
      http,
      roleWork: roleWorkOf(parts, schedules),
      close: () => closers.close(),
    };
  } catch (error) {
    await closers.close();
    throw error;
  }
}
