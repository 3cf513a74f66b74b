export { createDelivery, defaultDeliveryPolicy, type Delivery, type DeliveryPolicy, type ScheduleSend } from './delivery.js';
export { sendingJobs } from './sending.jobs.js';
export { sendingRoutes } from './sending.routes.js';
export { sendingSchemas } from './sending.schema.js';
export { createSendingService, type SendingService } from './sending.service.js';
export { startPoller, type Poller } from './poller.js';
