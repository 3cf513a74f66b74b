// What the deliveries to buyers need of the rest of the service.
import type { FiscalEnvironment } from '../../config.js';
import type { ReceiverClient } from '../../dgii/index.js';
import type { SchemaSet } from '../../fiscal/xsd/index.js';
import type { Clock } from '../../platform/clock.js';
import type { BuyerDeliveryChannel, BuyerDeliveryStatus, ArtefactRow, DocumentsService } from '../documents/index.js';
import type { Mailer } from '../../platform/mail/index.js';
import type { CompaniesService } from '../companies/index.js';
import type { PrintingService } from '../printing/index.js';
import type { Directory } from '../taxpayers/index.js';

export interface BuyerDeliveryPolicy {
  /** Attempts before a delivery is `failed` and a failed job opens. */
  maxAttempts: number;
  /** First retry delay; doubled per attempt, with jitter, up to maxRetryDelayMs.buyerDeliveries. */
  retryDelayMs: number;
  /** How long one worker holds a delivery: longer than its calls (directory, seed, token, post; or SMTP). */
  leaseMs: number;
}

/** The outcomes counted per channel (ecf_buyer_deliveries_total). */
export type CountedOutcome = 'delivered' | 'not_received' | 'skipped' | 'retry' | 'failed';

export interface BuyerDeliveryDeps {
  clock: Clock;
  environment: FiscalEnvironment;
  documents: Pick<DocumentsService, 'printableWithModel'>;
  companies: Pick<CompaniesService, 'issuer'>;
  printing: Pick<PrintingService, 'settingsOf' | 'pdf'>;
  directory: Directory;
  receivers: ReceiverClient;
  /** Undefined: e-mail is off (no SMTP_URL and no embedded mail catcher). */
  mailer: Mailer | undefined;
  /** The address e-mails are sent as (SMTP_FROM); the name is the company's. */
  mailFrom: string;
  /** DGII's schemas, to check the receivers' ARECFs with; undefined when none are installed. */
  schemas: SchemaSet | undefined;
  policy: BuyerDeliveryPolicy;
  count(channel: BuyerDeliveryChannel | null, outcome: CountedOutcome): void;
}

/**
 * How an attempt ended, as recorded: delivered or not received (the receiver's ARECF), or nothing to deliver. Every
 * field is always there (undefined where it does not apply): one shape for V8, whose optimized recording code was
 * thrown away each time an outcome of another shape came by.
 */
export interface Settled {
  channel: BuyerDeliveryChannel | null;
  status: Extract<BuyerDeliveryStatus, 'delivered' | 'not_received' | 'skipped'>;
  target: string | null;
  reason: string | null;
  arecf: { estado: string; motivo: string | null; fechaHora: string; artefact: ArtefactRow } | undefined;
  messageId: string | undefined;
}

/** Where a failed attempt went. */
export interface Attempted {
  channel: BuyerDeliveryChannel | null;
  target: string | null;
}
