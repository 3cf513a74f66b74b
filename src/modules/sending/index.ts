export {
  createDelivery,
  deliveryPolicy,
  documentPolls,
  documentSends,
  type ClaimedSend,
  type Delivery,
  type DeliveryPolicy,
} from './delivery.js';
export { sendingRoutes } from './sending.routes.js';
export { sendingSchemas } from './sending.schema.js';
export { createSendingService, type SendingService } from './sending.service.js';
export { startPoller, startSender } from './loops.js';
export { sendingModule } from './sending.module.js';
