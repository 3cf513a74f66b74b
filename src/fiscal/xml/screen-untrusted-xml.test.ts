import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { screenUntrustedXml } from './screen-untrusted-xml.js';

describe('the screen for untrusted XML', () => {
  const refused: [string, string | Uint8Array, string][] = [
    [
      'a DOCTYPE with an external entity (XXE)',
      '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/hostname">]><a>&x;</a>',
      'markup_declaration',
    ],
    [
      'a billion-laughs entity',
      '<!DOCTYPE l [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]><l>&b;</l>',
      'markup_declaration',
    ],
    ['a lower-case doctype', '<!doctype a><a/>', 'markup_declaration'],
    ['an entity declaration without DOCTYPE', '<a><!ENTITY x "y"></a>', 'markup_declaration'],
    ['more bytes than allowed', `<a>${'ñ'.repeat(600)}</a>`, 'too_large'],
    ['bytes that are not UTF-8', new Uint8Array([0x3c, 0x61, 0x3e, 0xff, 0x3c, 0x2f, 0x61, 0x3e]), 'not_utf8'],
    [
      'bytes declaring another encoding',
      new TextEncoder().encode('<?xml version="1.0" encoding="ISO-8859-1"?><a/>'),
      'encoding_unsupported',
    ],
    ['nothing but whitespace', ' \n\t ', 'empty'],
    ['a NUL byte', new Uint8Array([0x3c, 0x61, 0x3e, 0x00, 0x3c, 0x2f, 0x61, 0x3e]), 'forbidden_character'],
    ['a C0 control in text', '<a>\u0001</a>', 'forbidden_character'],
    ['U+FFFE', '<a>\uFFFE</a>', 'forbidden_character'],
    ['a lone high surrogate', '<a>\uD83D</a>', 'forbidden_character'],
    ['a lone low surrogate after a pair', '<a>\uD83D\uDE00\uDE00</a>', 'forbidden_character'],
  ];
  for (const [name, input, problem] of refused) {
    it(`refuses ${name}`, () => {
      const screened = screenUntrustedXml(input, 1_000);
      assert.equal(screened.ok ? 'accepted' : screened.problem, problem);
    });
  }

  it('accepts comments and CDATA, drops a BOM, and gives the text back unchanged otherwise', () => {
    const xml = '<?xml version="1.0" encoding="utf-8"?><a><!-- nota --><![CDATA[<x>]]>ñ</a>';
    assert.deepEqual(screenUntrustedXml(`\uFEFF${xml}`), { ok: true, text: xml });
    assert.deepEqual(screenUntrustedXml(new TextEncoder().encode(xml)), { ok: true, text: xml });
  });

  it('accepts tab, line ends and characters outside the BMP, and names the character it refuses and its line', () => {
    const xml = '<a>\t\r\n\uD83D\uDE00 \uE000 \uFFFD</a>';
    assert.deepEqual(screenUntrustedXml(xml), { ok: true, text: xml });
    const screened = screenUntrustedXml('<a>\n<b>x\u0000</b></a>');
    assert.ok(!screened.ok);
    assert.equal(screened.line, 2);
    assert.match(screened.message, /U\+0000/);
  });

  it('names the line of a refused declaration', () => {
    const screened = screenUntrustedXml('<?xml version="1.0"?>\n\n<!DOCTYPE a>\n<a/>');
    assert.equal(screened.ok ? undefined : screened.line, 3);
  });
});
