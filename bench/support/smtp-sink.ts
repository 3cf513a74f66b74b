// An SMTP server that takes every message and keeps none, in a process of its own as the buyers' mail servers are
// other machines (its CPU is not the app's). It counts what it took, and how many messages carried both the PDF and
// the signed XML, told over IPC; it exits when that channel closes, so it never outlives the bench.
import { fork } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SMTPServer } from 'smtp-server';

export interface SinkCounts {
  messages: number;
  /** Messages with a part of each type the e-mails to buyers attach: application/pdf and application/xml. */
  withPdfAndXml: number;
  bytes: number;
}

export interface SmtpSink {
  /** smtp://127.0.0.1:<port>, no TLS, no authentication. */
  url: string;
  pid: number;
  counts(): Promise<SinkCounts>;
  stop(): void;
}

function serve(): void {
  const counts: SinkCounts = { messages: 0, withPdfAndXml: 0, bytes: 0 };
  const server = new SMTPServer({
    logger: false,
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        counts.messages++;
        counts.bytes += raw.length;
        if (raw.includes('Content-Type: application/pdf') && raw.includes('Content-Type: application/xml'))
          counts.withPdfAndXml++;
        callback(null, `OK: ${String(counts.messages)}`);
      });
    },
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.server.address();
    process.send?.({ port: typeof address === 'object' && address !== null ? address.port : 0 });
  });
  process.on('message', () => process.send?.({ counts }));
  process.on('disconnect', () => {
    process.exit(0);
  });
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => {
      reject(new Error(`the SMTP sink exited (${String(code)}) before listening`));
    });
    child.once('message', (message: { port: number }) => {
      resolve(message.port);
    });
  });
  return {
    url: `smtp://127.0.0.1:${String(port)}`,
    pid: child.pid ?? 0,
    counts: () =>
      new Promise((resolve) => {
        child.once('message', (message: { counts: SinkCounts }) => {
          resolve(message.counts);
        });
        child.send('counts');
      }),
    stop() {
      if (child.connected) child.disconnect();
    },
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) serve();
