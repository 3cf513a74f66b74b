// A CPU profile of this process's main thread while a run runs, when the environment variable `variable` names a
// file: for Chrome's DevTools or `npx speedscope`, to see where a bench's own CPU goes (work on the thread pool or
// on worker threads is not in it).
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';

export async function profiled<T>(variable: string, run: () => Promise<T>, label?: string): Promise<T> {
  const given = process.env[variable];
  if (given === undefined || given === '') return run();
  // A bench that profiles several runs names each: app.cpuprofile becomes app.postgres.cpuprofile.
  const file = label === undefined ? given : given.replace(/(\.[^./]+)?$/, (extension) => `.${label}${extension}`);
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
