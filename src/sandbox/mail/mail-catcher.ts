// The sandbox's mail catcher: on embedded defaults the service e-mails buyers through it instead of a real server,
// and every message it accepts is kept in sandbox_mail for people and tests to read (GET /sandbox-admin/mail).
// smtp-server (by nodemailer's author) speaks SMTP; mailparser reads the headers it is listed by. Loopback only,
// so no TLS and no AUTH.
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { SandboxContext } from '../http/context.js';

/** The largest message caught; a bigger one is answered 552. What a PDF and an XML need, with room to spare. */
export const maxMailBytes = 25 * 1024 * 1024;

export interface MailCatcher {
  /** smtp://<host>:<port> */
  url: string;
  close(): Promise<void>;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The message as text, when it is 7-bit or UTF-8 (what nodemailer writes); undefined otherwise. */
function textOf(raw: Buffer): string | undefined {
  if (raw.includes(0)) return undefined;
  try {
    return utf8.decode(raw);
  } catch {
    return undefined;
  }
}

function smtpError(code: number, text: string): Error {
  return Object.assign(new Error(text), { responseCode: code });
}

export async function startMailCatcher(
  context: Pick<SandboxContext, 'db' | 'clock' | 'log'>,
  host: string,
): Promise<MailCatcher> {
  const { db, clock, log } = context;

  async function keep(raw: Buffer, envelopeFrom: string, recipients: string[]): Promise<number> {
    const text = textOf(raw);
    if (text === undefined) throw smtpError(554, '5.6.0 The sandbox keeps 7-bit or UTF-8 messages only');
    const headers = await simpleParser(raw, { skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true });
    const row = await db
      .insertInto('sandbox_mail')
      .values({
        received_at: clock.now(),
        envelope_from: envelopeFrom,
        recipients: JSON.stringify(recipients),
        subject: headers.subject ?? null,
        message_id: headers.messageId ?? null,
        size: raw.length,
        raw: text,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  const server = new SMTPServer({
    logger: false,
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    size: maxMailBytes,
    rejectOversized: true,
    closeTimeout: 1_000,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        if (!stream.sizeExceeded) chunks.push(chunk);
      });
      stream.on('end', () => {
        // smtp-server answers 552 itself (rejectOversized).
        if (stream.sizeExceeded) {
          callback();
          return;
        }
        const { mailFrom, rcptTo } = session.envelope;
        const from = mailFrom === false ? '' : mailFrom.address;
        keep(
          Buffer.concat(chunks),
          from,
          rcptTo.map((to) => to.address),
        ).then(
          (id) => {
            callback(null, `OK: caught as ${String(id)}`);
          },
          (error: unknown) => {
            if (error instanceof Error && 'responseCode' in error) {
              callback(error);
              return;
            }
            log.warn({ err: error }, 'mail catcher: could not keep a message');
            callback(smtpError(451, '4.3.0 The sandbox could not keep the message; try again'));
          },
        );
      });
    },
  });

  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.removeListener('error', reject);
      const address = server.server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
  // A client's mistake or a dropped connection must not take the sandbox down.
  server.on('error', (error: Error) => {
    log.warn({ err: error }, 'mail catcher: connection error');
  });

  return {
    url: `smtp://${host.includes(':') ? `[${host}]` : host}:${String(port)}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}
