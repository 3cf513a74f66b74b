// A node:test reporter that writes one line of JSON, the counts of a file's tests, for scripts/test.mjs to add up.
// Suites are not counted as tests, as Node's own summary does not count them.
export default async function* countTests(source) {
  const counts = { tests: 0, pass: 0, fail: 0, skip: 0, todo: 0 };
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    if (event.data.details?.type === 'suite') continue;
    counts.tests++;
    if (event.type === 'test:fail') counts.fail++;
    else if (event.data.skip) counts.skip++;
    else if (event.data.todo) counts.todo++;
    else counts.pass++;
  }
  yield `${JSON.stringify(counts)}\n`;
}
