import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonFieldError, maxJsonDepth, textFieldError } from './input-screen.js';

describe('the text every request must carry', () => {
  it('names the first NUL in a JSON body by its pointer, keys included, escaping ~ and /', () => {
    assert.equal(jsonFieldError({ a: [{ b: 'ok' }, { c: 'x\u0000' }] })?.pointer, '/a/1/c');
    assert.equal(jsonFieldError({ 'a/b~': { 'k\u0000': 1 } })?.pointer, '/a~1b~0/k\u0000');
    assert.equal(jsonFieldError('\u0000')?.pointer, '/');
    assert.deepEqual(jsonFieldError({ a: 'x\u0000' }), { pointer: '/a', in: 'body', code: 'forbidden_character', detail: 'U+0000 (NUL) is not allowed in text.' });
    assert.equal(jsonFieldError({ a: ['fine', 1, null, true, { b: 'ñ\uD83D\uDE00' }] }), undefined);
  });

  it(`refuses JSON nested past ${String(maxJsonDepth)} levels without recursing, and accepts it at the bound`, () => {
    const nested = (depth: number): unknown => {
      let value: unknown = 1;
      for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { a: value } : [value];
      return value;
    };
    assert.equal(jsonFieldError(nested(maxJsonDepth)), undefined);
    assert.equal(jsonFieldError(nested(maxJsonDepth + 1))?.code, 'too_deep');
    const deep = jsonFieldError(nested(1_000_000));
    assert.ok(deep !== undefined);
    assert.equal(deep.code, 'too_deep');
    assert.equal(deep.pointer.split('/').length, maxJsonDepth + 1);
  });

  it('names a NUL in path parameters and query values, repeated query keys included', () => {
    assert.deepEqual(textFieldError('params', { id: 'doc\u0000' }), { pointer: '/id', in: 'params', code: 'forbidden_character', detail: 'U+0000 (NUL) is not allowed in text.' });
    assert.equal(textFieldError('query', { status: ['sent', 'x\u0000'] })?.pointer, '/status');
    assert.equal(textFieldError('query', { ['a\u0000']: 'x' })?.pointer, '/a\u0000');
    assert.equal(textFieldError('query', { limit: '10', cursor: 'abc' }), undefined);
    assert.equal(textFieldError('params', undefined), undefined);
  });
});
