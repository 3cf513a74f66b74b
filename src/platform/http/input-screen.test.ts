import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonFieldError, maxJsonDepth, maxJsonValues, scanJsonText, textFieldError } from './input-screen.js';

describe('the text every request must carry', () => {
  it('names the first NUL in a JSON body by its pointer, keys included, escaping ~ and /', () => {
    assert.equal(jsonFieldError({ a: [{ b: 'ok' }, { c: 'x\u0000' }] })?.pointer, '/a/1/c');
    assert.equal(jsonFieldError({ 'a/b~': { 'k\u0000': 1 } })?.pointer, '/a~1b~0/k\u0000');
    assert.equal(jsonFieldError('\u0000')?.pointer, '/');
    assert.deepEqual(jsonFieldError({ a: 'x\u0000' }), {
      pointer: '/a',
      in: 'body',
      code: 'forbidden_character',
      detail: 'U+0000 (NUL) is not allowed in text.',
    });
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

  it('tells from the raw text alone which bodies need the walk: a \\u0000 escape, or brackets past the bound', () => {
    const needsWalk = (text: string) => {
      const scan = scanJsonText(text);
      return scan.mayHoldNul || scan.tooDeep;
    };
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    assert.equal(needsWalk(JSON.stringify({ a: ['x', { b: 1 }], c: 'ñ' })), false);
    assert.equal(needsWalk(nested(maxJsonDepth)), false);
    assert.equal(needsWalk(nested(maxJsonDepth + 1)), true);
    assert.equal(needsWalk(JSON.stringify({ a: 'x\u0000' })), true);
    // Brackets inside strings, escaped quotes included, are text.
    assert.equal(needsWalk(JSON.stringify({ a: `"${'['.repeat(100)}` })), false);
    // A body it passes over has nothing the walk would refuse; one it flags may still be fine (an escaped backslash).
    assert.equal(needsWalk(JSON.stringify({ a: '\\u0000' })), true);
    assert.equal(jsonFieldError({ a: '\\u0000' }), undefined);
  });

  it(`counts values up to ${String(maxJsonValues)}, commas and brackets in strings left out`, () => {
    const list = (count: number) => `[${Array.from({ length: count }, () => '{"a":"x,y[z"}').join(',')}]`;
    // Each {...} opens one value and each comma separates two: n objects count 2n.
    assert.equal(scanJsonText(list(maxJsonValues / 2)).tooManyValues, false);
    assert.equal(scanJsonText(list(maxJsonValues / 2 + 1)).tooManyValues, true);
  });

  it('walks 1.25 million small objects without building a path for each (linear)', () => {
    const body = JSON.parse(`[${Array.from({ length: 1_250_000 }, () => '{}').join(',')},"\\u0000"]`) as unknown;
    assert.equal(jsonFieldError(body)?.pointer, '/1250000');
  });

  it('names a NUL in path parameters and query values, repeated query keys included', () => {
    assert.deepEqual(textFieldError('params', { id: 'doc\u0000' }), {
      pointer: '/id',
      in: 'params',
      code: 'forbidden_character',
      detail: 'U+0000 (NUL) is not allowed in text.',
    });
    assert.equal(textFieldError('query', { status: ['sent', 'x\u0000'] })?.pointer, '/status');
    assert.equal(textFieldError('query', { ['a\u0000']: 'x' })?.pointer, '/a\u0000');
    assert.equal(textFieldError('query', { limit: '10', cursor: 'abc' }), undefined);
    assert.equal(textFieldError('params', undefined), undefined);
  });
});
