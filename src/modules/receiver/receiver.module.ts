import type { Platform, ModuleParts } from '../module.js';
import type { ReceivedApprovals } from '../documents/index.js';
import type { ReceivedService } from '../received/index.js';
import { registerReceiverRoutes } from './receiver.routes.js';
import { createReceiver } from './receiver.service.js';

/** DGII's receiver standard (/{env}/{service}/fe/...): its own scope, DGII-style answers, no API key. */
export function receiverModule(
  { config, db, cache, clock }: Platform,
  needs: { received: ReceivedService; receivedApprovals: ReceivedApprovals; localCompany: string | undefined },
): ModuleParts & { receiverBaseOf(companyId: string, instanceBaseUrl: string): Promise<string | undefined> } {
  const receiver = createReceiver({
    db,
    cache,
    clock,
    config,
    localCompany: needs.localCompany,
    received: needs.received,
    receiveApproval: (companyId, xml) => needs.receivedApprovals.receive(companyId, xml),
  });
  return {
    registerHttp: (app, catalogue) => registerReceiverRoutes(app, receiver, catalogue),
    forgetCompany: (companyId) => {
      receiver.forgetCompany(companyId);
    },
    receiverBaseOf: (companyId, instanceBaseUrl) => receiver.receiverBaseOf(companyId, instanceBaseUrl),
  };
}
