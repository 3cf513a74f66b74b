// The fast tier (`npm run test:unit`, the edit loop): the tests under src/ (the fiscal core, the platform, the
// modules' units) that need no server and start no process of the service. A file is left to the full suite when it
// talks to a real back end (PostgreSQL, Redis, S3 through test/support), fills a disk, or is about a process of its
// own. Short-lived oracles (xmllint, xmlsec1, openssl) stay in: they are what makes the fiscal tests worth running.
import { readFileSync } from 'node:fs';

const needsServerOrProcess =
  /test\/support\/(backends|s3rver|disk-full|tcp-proxy|worker-process|private-postgres|smtp-process)\.js|process-priority/;

export function isUnitTest(file) {
  return file.startsWith('src/') && !needsServerOrProcess.test(readFileSync(file, 'utf8'));
}
