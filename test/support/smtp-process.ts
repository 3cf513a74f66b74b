// A real SMTP server in a separate process, for tests of what the service sends by e-mail: each recipient answered
// as the test scripts it (421 then 250, always 550, a slow reply), every accepted message kept as a .eml file and
// read back with mailparser. The child is killed when the test process exits, however it exits.
import { fork } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { simpleParser, type AddressObject, type Headers } from 'mailparser';
import { childModule } from './node-program.js';
import type { Command, Counts, ScriptedReply, ServerOptions } from './scripted-smtp-server.js';

export type { Counts, ScriptedReply };

export interface ReceivedMail {
  /** What MAIL FROM and RCPT TO said. */
  envelope: { from: string; to: string[] };
  from: { name: string; address: string } | undefined;
  to: string[];
  replyTo: string | undefined;
  subject: string | undefined;
  text: string | undefined;
  html: string | undefined;
  messageId: string | undefined;
  headers: Headers;
  attachments: { filename: string | undefined; contentType: string; content: Buffer }[];
  raw: Buffer;
}

export interface SmtpProcess {
  /** smtp://127.0.0.1:<port>, with the credentials when the server requires them. */
  url: string;
  /** Replaces the replies for one recipient (see ServerOptions.script). */
  script(address: string, replies: ScriptedReply[]): Promise<void>;
  counts(): Promise<Counts>;
  /** The accepted messages, oldest first. */
  messages(): Promise<ReceivedMail[]>;
  stop(): Promise<void>;
}

const serverScript = fileURLToPath(new URL('./scripted-smtp-server.ts', import.meta.url));

function addresses(field: AddressObject | AddressObject[] | undefined): string[] {
  return [field ?? []].flat().flatMap((group) => group.value.map((entry) => entry.address ?? ''));
}

async function readMail(dir: string, name: string): Promise<ReceivedMail> {
  const raw = readFileSync(join(dir, `${name}.eml`));
  const parsed = await simpleParser(raw);
  const from = parsed.from?.value[0];
  return {
    envelope: JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as ReceivedMail['envelope'],
    from: from === undefined ? undefined : { name: from.name, address: from.address ?? '' },
    to: addresses(parsed.to),
    replyTo: parsed.replyTo?.value[0]?.address,
    subject: parsed.subject,
    text: parsed.text,
    html: parsed.html === false ? undefined : parsed.html,
    messageId: parsed.messageId,
    headers: parsed.headers,
    attachments: parsed.attachments.map((attachment) => ({
      filename: attachment.filename,
      contentType: attachment.contentType,
      content: attachment.content,
    })),
    raw,
  };
}

export async function startSmtpProcess(
  options: { script?: Record<string, ScriptedReply[]>; auth?: { user: string; pass: string } } = {},
): Promise<SmtpProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'ecf-smtp-'));
  const serverOptions: ServerOptions = {
    dir,
    script: options.script ?? {},
    ...(options.auth && { auth: options.auth }),
  };
  const server = childModule(serverScript);
  const child = fork(server.path, [JSON.stringify(serverOptions)], {
    execArgv: server.nodeArgs,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);

  const answers = new Map<number, (counts: Counts) => void>();
  let requests = 0;
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => {
      reject(new Error(`the SMTP server process exited (${String(code)}) before listening`));
    });
    child.on('message', (message: { type: 'listening'; port: number } | { id: number; counts: Counts }) => {
      if ('port' in message) resolve(message.port);
      else answers.get(message.id)?.(message.counts);
    });
  });
  const ask = (command: Command) =>
    new Promise<Counts>((resolve) => {
      const id = ++requests;
      answers.set(id, (counts) => {
        answers.delete(id);
        resolve(counts);
      });
      child.send({ ...command, id });
    });

  const credentials =
    options.auth === undefined
      ? ''
      : `${encodeURIComponent(options.auth.user)}:${encodeURIComponent(options.auth.pass)}@`;
  return {
    url: `smtp://${credentials}127.0.0.1:${String(port)}`,
    script: async (address, replies) => {
      await ask({ type: 'script', address, replies });
    },
    counts: () => ask({ type: 'counts' }),
    async messages() {
      const names = readdirSync(dir)
        .filter((name) => name.endsWith('.eml'))
        .map((name) => name.slice(0, -'.eml'.length))
        .sort((a, b) => Number(a) - Number(b));
      return Promise.all(names.map((name) => readMail(dir, name)));
    },
    async stop() {
      process.removeListener('exit', kill);
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.disconnect();
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
