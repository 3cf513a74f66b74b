// A CPU profile of this process's main thread while a run runs, when the environment variable `variable` names a
// file: for Chrome's DevTools or `npx speedscope`, to see where a bench's own CPU goes (work on the thread pool or
// on worker threads is not in it).
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';

export async function profiled<T>(variable: string, run: () => Promise<T>): Promise<T> {
  const file = process.env[variable];
  if (file === undefined || file === '') return run();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await run();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(file, JSON.stringify(profile));
    session.disconnect();
  }
}
