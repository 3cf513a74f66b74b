import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildResponseSerializers } from './response-serializers.js';

const Money = { $id: 'Money', type: 'object', properties: { amount: { type: 'string' } }, required: ['amount'] };
const Line = { $id: 'Line', type: 'object', properties: { price: { $ref: 'Money' }, code: { type: 'string' } } };
const Unused = { $id: 'Unused', type: 'object', properties: { broken: { $ref: 'Nowhere' } } };
const response = { type: 'object', properties: { lines: { type: 'array', items: { $ref: 'Line#' } } } };

describe('response serializers', () => {
  it('serializes through the components a schema reaches, dropping what the schema does not name', () => {
    const serialize = buildResponseSerializers({ Money, Line, Unused })({ schema: response });
    const body = { lines: [{ price: { amount: '1.50', extra: 'x' }, code: 'A', secret: 'y' }] };
    assert.equal(serialize(body), '{"lines":[{"price":{"amount":"1.50"},"code":"A"}]}');
  });

  it('builds a schema once per process and shares it between apps with the same components', () => {
    const first = buildResponseSerializers({ Money, Line })({ schema: response });
    const second = buildResponseSerializers({ Line, Money, Unused })({ schema: response });
    assert.equal(second, first, 'another app with the same components reached: the same serializer');
    const OtherMoney = { ...Money, properties: { amount: { type: 'number' } } };
    const third = buildResponseSerializers({ Money: OtherMoney, Line })({ schema: response });
    assert.notEqual(third, first, 'other components: a serializer of their own');
    assert.equal(third({ lines: [{ price: { amount: 2 } }] }), '{"lines":[{"price":{"amount":2}}]}');
  });

  it('builds as Fastify would, with every component, when a reference names none of them', () => {
    const schema = { type: 'object', properties: { a: { $ref: 'Elsewhere' } } };
    assert.throws(() => buildResponseSerializers({ Money })({ schema }), /Elsewhere/);
  });
});
