import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { withCorrelationId } from './correlation.js';
import { createLogger, logLines } from './logger.js';

function capture(): { stream: Writable; lines: () => string[] } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, lines: () => text.split('\n').filter((line) => line !== '') };
}

describe('log lines', () => {
  it('are pretty on a terminal in development only, unless LOG_FORMAT says', () => {
    assert.equal(logLines({ logFormat: 'auto', nodeEnv: 'development' }, true), 'pretty');
    assert.equal(logLines({ logFormat: 'auto', nodeEnv: 'development' }, false), 'json');
    assert.equal(logLines({ logFormat: 'auto', nodeEnv: 'production' }, true), 'json');
    assert.equal(logLines({ logFormat: 'auto', nodeEnv: 'test' }, true), 'json');
    assert.equal(logLines({ logFormat: 'json', nodeEnv: 'development' }, true), 'json');
    assert.equal(logLines({ logFormat: 'pretty', nodeEnv: 'production' }, false), 'pretty');
  });

  it('pretty: one line per entry with time, level, message and fields, secrets redacted', async () => {
    const out = capture();
    const log = createLogger('info', out.stream, 'pretty');
    log.info({ documentId: 'doc_1', apiKey: 'ecf_test_secret' }, 'document signed');
    log.debug('not at this level');
    await new Promise((resolve) => setImmediate(resolve));
    const lines = out.lines();
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.match(lines[0] ?? '', /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: document signed \{.*"documentId":"doc_1"/);
    assert.match(lines[0] ?? '', /"apiKey":"\[redacted\]"/);
    assert.doesNotMatch(lines[0] ?? '', /ecf_test_secret|"service"|"pid"/);
  });

  it('json: the JSON line as before', async () => {
    const out = capture();
    createLogger('info', out.stream).info({ apiKey: 'ecf_test_secret' }, 'hello');
    await new Promise((resolve) => setImmediate(resolve));
    const entry = JSON.parse(out.lines()[0] ?? '') as Record<string, unknown>;
    assert.equal(entry.msg, 'hello');
    assert.equal(entry.level, 30);
    assert.equal(entry.service, 'ecf-service');
    assert.equal(entry.apiKey, '[redacted]');
  });

  it('carry the correlation id of the request or work under way, from any logger, once', async () => {
    const out = capture();
    const log = createLogger('info', out.stream);
    log.info('outside');
    await withCorrelationId('abc-123', async () => {
      await new Promise((resolve) => setImmediate(resolve));
      log.child({ component: 'dgii-client' }).info('deep inside');
      // A request's own logger has it bound already (Fastify's): not written twice, and its own value kept.
      log.child({ correlationId: 'bound-id' }).info('bound');
    });
    await new Promise((resolve) => setImmediate(resolve));
    const lines = out.lines();
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(
      entries.map((entry) => [entry.msg, entry.correlationId]),
      [
        ['outside', undefined],
        ['deep inside', 'abc-123'],
        ['bound', 'bound-id'],
      ],
    );
    assert.equal(entries[1]?.component, 'dgii-client');
    assert.equal(lines[2]?.split('"correlationId"').length, 2, lines[2]);
  });
});
