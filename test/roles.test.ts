// The README's role table (README, "Roles") against what the modules give each role: the loops each role starts,
// the jobs the workers run and the schedules the scheduler keeps (src/schedules.ts). Built in CERT with a taxpayer listing URL, where
// every loop and schedule exists.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from './support/test-app.js';

/** The backticked names of each cell of the README's row for `role`. */
function readmeRow(role: string): string[][] {
  const line = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
    .split('\n')
    .find((text) => text.startsWith(`| \`${role}\` |`));
  assert.ok(line !== undefined, `README's role table has a row for ${role}`);
  return line
    .split('|')
    .slice(2, -1)
    .map((cell) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? ''));
}

describe('the README role table', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({
      env: { FISCAL_ENV: 'CERT', TAXPAYERS_IMPORT_URL: 'https://dgii.gov.do/app/WebApps/Consultas/RNC/DGII_RNC.zip' },
    });
  });
  after(async () => {
    await app.close();
  });

  it('names the loops, jobs and schedules each role runs, as the modules define them', () => {
    const { roleWork } = app.application;
    const [httpLoops, httpJobs, httpSchedules] = readmeRow('http');
    assert.deepEqual([httpLoops, httpJobs, httpSchedules], [[], [], []]);
    const [workLoops, workJobs, workSchedules] = readmeRow('work');
    assert.deepEqual([workLoops, workJobs, workSchedules], [roleWork.loops.work, roleWork.jobs, []]);
    const [scheduleLoops, scheduleJobs, schedules] = readmeRow('schedule');
    assert.deepEqual([scheduleLoops, scheduleJobs], [roleWork.loops.schedule, []]);
    assert.deepEqual(
      schedules,
      roleWork.schedules.flatMap((schedule) => [schedule.job, schedule.cron]),
    );
  });
});
