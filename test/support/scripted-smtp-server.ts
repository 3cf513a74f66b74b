// The child process of smtp-process.ts: a real SMTP server (smtp-server) that answers each recipient as the test
// scripted it and writes every message it accepts to `<dir>/<n>.eml`, with its envelope in `<n>.json`. Driven over
// the IPC channel; it exits when that channel closes, so it never outlives the test process.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/** One answer to one attempt at a recipient: to its RCPT TO, or to the message's data. */
export interface ScriptedReply {
  at: 'rcpt' | 'data';
  code: number;
  text: string;
  /** Wait this long before answering. */
  delayMs?: number;
}

export interface ServerOptions {
  dir: string;
  /** Per recipient address: the replies to its attempts in order; the last one answers every attempt after it. */
  script: Record<string, ScriptedReply[]>;
  /** When set, AUTH (PLAIN or LOGIN, without TLS) is offered and these credentials are required. */
  auth?: { user: string; pass: string };
}

/** What the test asks; every request is answered with the counts, under its id. */
export type Command = { type: 'script'; address: string; replies: ScriptedReply[] } | { type: 'counts' };

export interface Counts {
  connections: number;
  /** RCPT TO attempts per recipient address (lower case). */
  rcpt: Record<string, number>;
}

const options = JSON.parse(process.argv[2] ?? '{}') as ServerOptions;
const scripts = new Map(Object.entries(options.script).map(([address, replies]) => [address.toLowerCase(), replies]));
const counts: Counts = { connections: 0, rcpt: {} };
const dataReplies = new Map<string, ScriptedReply>();
let accepted = 0;

function nextReply(address: string): ScriptedReply | undefined {
  const replies = scripts.get(address);
  return replies !== undefined && replies.length > 1 ? replies.shift() : replies?.[0];
}

function refusal(reply: ScriptedReply): Error {
  return Object.assign(new Error(reply.text), { responseCode: reply.code });
}

const later = (reply: ScriptedReply | undefined, answer: () => void) => setTimeout(answer, reply?.delayMs ?? 0);

const serverOptions: SMTPServerOptions = {
  logger: false,
  disabledCommands: options.auth === undefined ? ['STARTTLS', 'AUTH'] : ['STARTTLS'],
  allowInsecureAuth: true,
  authOptional: options.auth === undefined,
  onConnect(_session, callback) {
    counts.connections += 1;
    callback();
  },
  onAuth(auth, _session, callback) {
    if (auth.username === options.auth?.user && auth.password === options.auth?.pass)
      callback(null, { user: auth.username });
    else callback(refusal({ at: 'rcpt', code: 535, text: '5.7.8 Authentication credentials invalid' }));
  },
  onRcptTo(address, session, callback) {
    const key = address.address.toLowerCase();
    counts.rcpt[key] = (counts.rcpt[key] ?? 0) + 1;
    const reply = nextReply(key);
    if (reply?.at === 'data') {
      dataReplies.set(session.id, reply);
      callback();
      return;
    }
    later(reply, () => {
      callback(reply === undefined || reply.code < 300 ? null : refusal(reply));
    });
  },
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const reply = dataReplies.get(session.id);
      dataReplies.delete(session.id);
      later(reply, () => {
        if (reply !== undefined && reply.code >= 300) {
          callback(refusal(reply));
          return;
        }
        accepted += 1;
        const { mailFrom, rcptTo } = session.envelope;
        const envelope = { from: mailFrom === false ? '' : mailFrom.address, to: rcptTo.map((to) => to.address) };
        writeFileSync(join(options.dir, `${String(accepted)}.json`), JSON.stringify(envelope));
        writeFileSync(join(options.dir, `${String(accepted)}.eml`), Buffer.concat(chunks));
        callback(null, reply?.text ?? `OK: queued as ${String(accepted)}`);
      });
    });
  },
};

const server = new SMTPServer(serverOptions);
server.listen(0, '127.0.0.1', () => {
  const address = server.server.address();
  process.send?.({ type: 'listening', port: typeof address === 'object' && address !== null ? address.port : 0 });
});

process.on('message', (request: Command & { id: number }) => {
  if (request.type === 'script') scripts.set(request.address.toLowerCase(), [...request.replies]);
  process.send?.({ id: request.id, counts });
});
process.on('disconnect', () => {
  process.exit(0);
});
