// How a test runs a file of this project's TypeScript in a child node process. The suite runs from JavaScript that
// scripts/test-build.mjs compiles into a mirror of the project, each .ts beside its .js: there a child runs the .js
// as it is, where tsx's loader would cost it 2-5 s of CPU on Node 20. Run from the sources, a child goes through tsx.
import { existsSync } from 'node:fs';

/** The project's `file` (a .ts path) as a child imports it, and the node arguments the child needs for that. */
export function childModule(file: string): { path: string; nodeArgs: string[] } {
  const compiled = file.replace(/\.ts$/, '.js');
  return compiled !== file && existsSync(compiled)
    ? { path: compiled, nodeArgs: [] }
    : { path: file, nodeArgs: ['--import', 'tsx'] };
}

/** The node arguments that run the project's `file`, `nodeOptions` before it (a preload in TypeScript needs tsx). */
export function nodeProgram(file: string, nodeOptions: readonly string[] = []): string[] {
  const { path, nodeArgs } = childModule(file);
  if (nodeOptions.some((option) => option.endsWith('.ts'))) return ['--import', 'tsx', ...nodeOptions, file];
  return [...nodeArgs, ...nodeOptions, path];
}
