export { receivedArtefactKinds } from './artefacts.js';
export { receivedRoutes } from './received.routes.js';
export { receivedSchemas } from './received.schema.js';
export {
  createReceivedService,
  type Reception,
  type ReceivedService,
  type ReceivingCompany,
} from './received.service.js';
export { outgoingResponseRoutes } from './outgoing-response.routes.js';
export { outgoingResponseSchemas, CommercialResponseView } from './outgoing-response.schema.js';
export { outgoingResponseOf } from './outgoing-response-view.js';
export {
  createOutgoingResponses,
  type OutgoingResponses,
  type ScheduleResponseDelivery,
} from './outgoing-response.service.js';
export {
  createResponseDeliveryTarget,
  responseDeliveryLeaseMs,
  responseDeliveryTargets,
  type ResponseDeliveryPolicy,
} from './outgoing-response-delivery.js';
export {
  artefactsOfReceived,
  receivedArtefactsInventory,
  receivedInPeriodCount,
  receivedInPeriodPage,
  receivedSince,
} from './received-reads.js';
export { receivedModule } from './received.module.js';
export type { ReceivedArtefactKind, ReceivedTables } from './tables.js';
