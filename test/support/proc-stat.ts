// Reading Linux's /proc/<pid>/stat: the fields after the command's closing parenthesis (the command may itself
// hold spaces and parentheses), so field N of proc(5) is index N - 3.
import { readdirSync, readFileSync } from 'node:fs';

export function procStatFields(path: string): string[] {
  const stat = readFileSync(path, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The niceness of each thread of process `pid` (field 19 of each /proc/<pid>/task/<thread>/stat). */
export function threadNices(pid: number | 'self'): number[] {
  const tasks = `/proc/${String(pid)}/task`;
  return readdirSync(tasks).map((thread) => Number(procStatFields(`${tasks}/${thread}/stat`)[16]));
}
