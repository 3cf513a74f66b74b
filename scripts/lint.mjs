#!/usr/bin/env node
// `npm run lint`: every check of scripts/lint-steps.mjs in turn, stopping at the first that fails.
import { spawnSync } from 'node:child_process';
import { lintSteps } from './lint-steps.mjs';

for (const step of lintSteps) {
  const { status } = spawnSync(step.command, step.args, { stdio: 'inherit' });
  if (status !== 0) {
    console.error(`${step.name} failed`);
    process.exit(status ?? 1);
  }
}
