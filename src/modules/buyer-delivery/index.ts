// Every accepted e-CF to its buyer: the buyer's electronic receiver (and its signed ARECF), or e-mail.
export { buyerDeliveryModule } from './buyer-delivery.module.js';
export { buyerDeliveryTarget } from './buyer-delivery.target.js';
export type { BuyerDeliveryService } from './buyer-delivery.service.js';
