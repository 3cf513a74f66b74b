// Sending e-mail over SMTP, for deliveries to buyers who are not electronic receivers (DESIGN §5.3). Built on
// nodemailer, the well-kept de-facto SMTP client for Node: it takes the server from an smtp:// or smtps:// URL
// (STARTTLS when the server offers it on smtp://, implicit TLS on smtps://, AUTH from the userinfo) and keeps a
// pool of connections. A failed send is an outcome, not an exception: the outbound work engine decides on retries.
import { randomUUID } from 'node:crypto';
import { createTransport } from 'nodemailer';
import { isPermanentResponseCode, type NodemailerError } from 'nodemailer/lib/errors';

export interface MailMessage {
  /** `address` is the service's own (SMTP_FROM); `name` is the issuing company's. */
  from: { name: string; address: string };
  replyTo?: string | undefined;
  to: string;
  subject: string;
  text: string;
  html: string;
  attachments: { filename: string; content: Buffer; contentType: string }[];
  headers?: Record<string, string>;
}

export type MailOutcome =
  /** The server took the message (2xx after DATA). `messageId` is the Message-ID header we wrote, `<…@…>`. */
  | { kind: 'sent'; messageId: string; response: string }
  /** A 4xx reply, or the connection failed, was lost or timed out: worth retrying. */
  | { kind: 'transient'; detail: string }
  /** A 5xx reply (550 no such mailbox, 554 refused): sending again gets the same. `detail` is the server's reply. */
  | { kind: 'permanent'; detail: string; code: number };

export interface Mailer {
  send(message: MailMessage): Promise<MailOutcome>;
  close(): void;
  /** The server's URL without its password. */
  url: string;
}

export interface MailerOptions {
  /** smtp://[user:password@]host[:port] or smtps://… */
  url: string;
  connectTimeoutMs: number;
  /** The longest wait for the greeting and for each reply. */
  responseTimeoutMs: number;
  /** Keep connections open between sends (default true). */
  pool?: boolean;
}

/** Errors that end the connection rather than answer the message: the server or the way to it is unwell. */
const connectionCodes = new Set(['ECONNECTION', 'ESOCKET', 'ETIMEDOUT', 'EDNS', 'ETLS', 'EPROXY', 'EPROTOCOL']);

function withoutPassword(url: string): string {
  const parsed = new URL(url);
  parsed.password = '';
  return parsed.toString();
}

export function createMailer(options: MailerOptions): Mailer {
  const timeouts = {
    connectionTimeout: options.connectTimeoutMs,
    greetingTimeout: options.responseTimeoutMs,
    socketTimeout: options.responseTimeoutMs,
    // Our messages carry only buffers: nodemailer must never read a file or fetch a URL on a message's behalf.
    disableFileAccess: true,
    disableUrlAccess: true,
  };
  // The pool moves a message to a fresh connection on its own only when a reused one failed before a byte of the
  // message was sent (the server dropped it while idle): that never sends twice, so it is left on.
  const transport =
    options.pool === false
      ? createTransport({ url: options.url, ...timeouts })
      : createTransport({ url: options.url, pool: true, ...timeouts });
  return {
    url: withoutPassword(options.url),
    close: () => {
      transport.close();
    },
    async send(message) {
      const messageId = `<${randomUUID()}@${domainOf(message.from.address)}>`;
      try {
        const info = await transport.sendMail({
          messageId,
          from: message.from,
          to: message.to,
          ...(message.replyTo === undefined ? {} : { replyTo: message.replyTo }),
          subject: message.subject,
          text: message.text,
          html: message.html,
          attachments: message.attachments,
          ...(message.headers === undefined ? {} : { headers: message.headers }),
        });
        return { kind: 'sent', messageId, response: info.response };
      } catch (error) {
        return classify(error);
      }
    },
  };
}

function domainOf(address: string): string {
  const at = address.lastIndexOf('@');
  return at === -1 ? 'localhost' : address.slice(at + 1);
}

/**
 * What a failure of nodemailer's means for a retry (nodemailer/lib/errors: `responseCode` when the server replied,
 * `code` for the step that failed). A failure that is neither a reply nor the connection's (an address nodemailer
 * refuses to write, a missing password) is a bug or a misconfiguration, and is thrown.
 */
function classify(error: unknown): MailOutcome {
  if (!(error instanceof Error)) throw error;
  const failure: NodemailerError = error;
  const { responseCode, response, code } = failure;
  if (responseCode !== undefined) {
    const detail = response ?? failure.message;
    // 503 (bad sequence of commands) says the session was out of step, not that the message was refused: a new
    // connection may take it (nodemailer's isPermanentResponseCode, RFC 5321 §4.2.1).
    return isPermanentResponseCode(responseCode)
      ? { kind: 'permanent', detail, code: responseCode }
      : { kind: 'transient', detail };
  }
  // The server announced a SIZE the message exceeds (RFC 1870 §6.1): it would answer 552, nodemailer does not ask.
  if (code === 'EMESSAGE' && /larger than allowed/.test(failure.message))
    return { kind: 'permanent', detail: failure.message, code: 552 };
  if (code !== undefined && connectionCodes.has(code)) {
    const cause = failure.originalCode ?? failure.timeoutType;
    return { kind: 'transient', detail: `${code}${cause === undefined ? '' : ` (${cause})`}: ${failure.message}` };
  }
  throw error;
}
