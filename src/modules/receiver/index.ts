export { createReceiverAuth, type ReceiverAuth } from './receiver-auth.js';
export { companyByRncOrId, companyBySegment } from './receiver.repo.js';
export { receiverBaseOf } from './receiver-base.js';
export {
  localServiceSegment,
  receiverRoutes,
  registerReceiverRoutes,
  type ReceiverCompany,
  type ReceiverDeps,
} from './receiver.routes.js';
export { createReceiver } from './receiver.service.js';
export { receiverModule } from './receiver.module.js';
