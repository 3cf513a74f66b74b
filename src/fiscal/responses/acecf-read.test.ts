// Reading a received ACECF and matching it with the e-CF it names: the rules the service and the sandbox share.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseXmlTree } from '../parse/index.js';
import { buildAcecf, type Acecf } from './acecf.js';
import {
  acecfDecision,
  acecfMismatches,
  readAcecf,
  sameAmount,
  sameDate,
  takesCommercialApproval,
} from './acecf-read.js';

const approval: Acecf = {
  RNCEmisor: '131880681',
  eNCF: 'E310000000001',
  FechaEmision: '20-11-2026',
  MontoTotal: '35400.00',
  RNCComprador: '130862346',
  Estado: '1',
  FechaHoraAprobacionComercial: '21-11-2026 12:00:00',
};

function treeOf(xml: string) {
  const parsed = parseXmlTree(xml);
  assert.ok(parsed.ok);
  assert.equal(parsed.root, 'ACECF');
  return parsed.tree;
}

describe('readAcecf', () => {
  it('reads every field of an approval as written', () => {
    const built = buildAcecf(approval);
    assert.ok(built.ok);
    assert.deepEqual(readAcecf(treeOf(built.xml)), { ...approval, DetalleMotivoRechazo: undefined });
  });

  it('reads the reason of a rejection, entities decoded', () => {
    const built = buildAcecf({ ...approval, Estado: '2', DetalleMotivoRechazo: 'Precio & cantidad <no> coinciden' });
    assert.ok(built.ok);
    assert.equal(readAcecf(treeOf(built.xml))?.DetalleMotivoRechazo, 'Precio & cantidad <no> coinciden');
  });

  it('reads nothing when a required field is missing', () => {
    assert.equal(
      readAcecf(
        treeOf(
          '<ACECF><DetalleAprobacionComercial><Version>1.0</Version><RNCEmisor>131880681</RNCEmisor></DetalleAprobacionComercial></ACECF>',
        ),
      ),
      undefined,
    );
    assert.equal(readAcecf(treeOf('<ACECF/>')), undefined);
  });
});

describe('acecfDecision', () => {
  for (const [estado, reason, expected] of [
    ['1', undefined, { decision: 'approved', reason: undefined }],
    ['2', 'No pedimos esto', { decision: 'rejected', reason: 'No pedimos esto' }],
    ['2', undefined, { problem: 'reason_required' }],
    ['2', '   ', { problem: 'reason_required' }],
    ['1', 'sobra', { problem: 'reason_not_allowed' }],
    ['3', undefined, { problem: 'estado_invalid' }],
  ] as const) {
    it(`reads Estado ${estado} with ${reason === undefined ? 'no reason' : `reason "${reason}"`}`, () => {
      assert.deepEqual(acecfDecision({ Estado: estado, DetalleMotivoRechazo: reason }), expected);
    });
  }
});

describe('matching an approval with its e-CF', () => {
  const ecf = { RNCComprador: '130862346', FechaEmision: '20-11-2026', MontoTotal: '35400.00' };

  it('finds nothing to object to when buyer, date and total are the e-CF own', () => {
    assert.deepEqual(acecfMismatches(approval, ecf), []);
  });

  it('takes an amount and a date written differently but equal', () => {
    assert.deepEqual(
      acecfMismatches(
        { ...approval, MontoTotal: '35400', FechaEmision: '20-11-2026' },
        { ...ecf, MontoTotal: '35400.0' },
      ),
      [],
    );
    assert.equal(sameDate('01-02-2026', '1-2-2026'), true);
  });

  it('names each field that differs, in the order of the format', () => {
    assert.deepEqual(
      acecfMismatches(
        { ...approval, RNCComprador: '101010101', FechaEmision: '21-11-2026', MontoTotal: '35400.01' },
        ecf,
      ),
      ['RNCComprador', 'FechaEmision', 'MontoTotal'],
    );
    assert.deepEqual(acecfMismatches(approval, { ...ecf, MontoTotal: '35399.99' }), ['MontoTotal']);
    assert.deepEqual(acecfMismatches(approval, { ...ecf, RNCComprador: null }), ['RNCComprador']);
  });

  it('never matches a date or an amount that cannot be read', () => {
    assert.equal(sameDate('31-02-2026', '31-02-2026'), false);
    assert.equal(sameAmount(null, '1.00'), false);
    assert.equal(sameAmount('abc', 'abc'), false);
  });
});

describe('takesCommercialApproval', () => {
  for (const [type, takes] of [
    ['31', true],
    ['33', true],
    ['34', true],
    ['44', true],
    ['45', true],
    ['32', false],
    ['41', false],
    ['43', false],
    ['46', false],
    ['47', false],
  ] as const) {
    it(`${takes ? 'takes one' : 'takes none'} for type ${type}`, () => {
      assert.equal(takesCommercialApproval(`E${type}0000000001`), takes);
    });
  }
});
