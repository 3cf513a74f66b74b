import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { childModule } from '../../test/support/node-program.js';

const priority = childModule(fileURLToPath(new URL('./process-priority.ts', import.meta.url)));
const procStat = childModule(fileURLToPath(new URL('../../test/support/proc-stat.ts', import.meta.url)));

// A child process lowers its priority and reports each of its threads' niceness from /proc.
const child = `
import { setProcessNice } from ${JSON.stringify(priority.path)};
import { threadNices } from ${JSON.stringify(procStat.path)};
setProcessNice(7);
process.stdout.write(JSON.stringify(threadNices('self')));
`;

test(
  'setProcessNice lowers every thread of the process, not only the main one (os.setPriority alone)',
  { skip: !existsSync('/proc/self/task') && 'no /proc' },
  () => {
    const output = execFileSync(process.execPath, [...priority.nodeArgs, '--input-type=module', '-e', child], {
      encoding: 'utf8',
    });
    const nices = JSON.parse(output) as number[];
    assert.ok(nices.length > 1, `V8 runs helper threads: ${output}`);
    assert.deepEqual(new Set(nices), new Set([7]));
  },
);
