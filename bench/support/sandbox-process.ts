// The DGII sandbox in a process of its own (sandbox-child.ts), as DGII is another machine, driven one request at a
// time over IPC.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { SandboxReply, SandboxRequest } from './sandbox-child.js';

export interface SandboxProcess {
  child: ChildProcess;
  /** The next reply (the first is `ready`); a `failed` reply or the child's exit rejects it. */
  next(): Promise<SandboxReply>;
  ask(request: SandboxRequest): Promise<SandboxReply>;
}

export function startSandboxProcess(embedded: boolean): SandboxProcess {
  const child = fork(fileURLToPath(new URL('./sandbox-child.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, BENCH_EMBEDDED: embedded ? '1' : '0' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = () =>
    new Promise<SandboxReply>((resolve, reject) => {
      const onExit = (code: number | null) => {
        reject(new Error(`the sandbox process exited with ${String(code)}`));
      };
      child.once('exit', onExit);
      child.once('message', (reply: SandboxReply) => {
        child.off('exit', onExit);
        if (reply.type === 'failed') reject(new Error(`sandbox process: ${reply.message}`));
        else resolve(reply);
      });
    });
  return {
    child,
    next,
    ask(request) {
      const answer = next();
      child.send(request);
      return answer;
    },
  };
}
