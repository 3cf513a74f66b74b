import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readSample } from '../../../test/support/xmldsig-kit.js';
import { readSignatureValue, securityCode } from './index.js';

describe('securityCode', () => {
  // dgii/README.md, samples table.
  const samples: [string, string][] = [
    ['130359334E310000008928.xml', 'IK4pIs'],
    ['signedXml.xml', 'gG/XYZ'],
    ['130862346E310005000201.xml', 'c0qwgy'],
  ];
  for (const [file, code] of samples) {
    it(`is ${code} for ${file}: the first 6 characters of SignatureValue, case and + / kept`, () => {
      const signatureValue = readSignatureValue(readSample(file).toString('utf8'));
      assert.ok(signatureValue !== undefined);
      assert.equal(securityCode(signatureValue), code);
    });
  }

  it('ignores line breaks inside a wrapped SignatureValue', () => {
    assert.equal(securityCode('\n  ab+/\n  cdEF=='), 'ab+/cd');
  });

  it('refuses a value shorter than 6 characters', () => {
    assert.throws(() => securityCode('abc'), RangeError);
  });
});

describe('readSignatureValue', () => {
  it('reads an indented, prefixed SignatureValue without its whitespace', () => {
    assert.equal(
      readSignatureValue('<R><ds:SignatureValue Id="s">\n  QUJD\n  REVG\n</ds:SignatureValue></R>'),
      'QUJDREVG',
    );
  });

  it('is undefined when there is none or it is empty', () => {
    assert.equal(readSignatureValue('<R></R>'), undefined);
    assert.equal(readSignatureValue('<R><SignatureValue></SignatureValue></R>'), undefined);
  });
});
