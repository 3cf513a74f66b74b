// Documents arrive from the internet (the receiver endpoints): whatever they hold, validation answers with
// findings and never expands an entity, reads a file, or crashes.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { diag } from 'libxml2-wasm';
import { compileSchemaSet, type XsdFindingCode } from '../../fiscal/xsd/index.js';
import { readOfficialXsds, validEcf31 } from '../../../test/support/dgii-files.js';

const set = compileSchemaSet(readOfficialXsds());
after(() => {
  set.dispose();
});

const codes = (xml: string | Uint8Array) => set.validate('e-CF-31', xml).map((finding) => finding.code);

const laughs = [
  '<?xml version="1.0"?>',
  '<!DOCTYPE ECF [<!ENTITY lol "lol">',
  ...Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`),
  ']><ECF>&lol9;</ECF>',
].join('\n');

describe('hostile XML', () => {
  const forbidden: [string, string | Uint8Array][] = [
    [
      'an external entity (XXE) naming file:///etc/hostname',
      '<?xml version="1.0"?><!DOCTYPE ECF [<!ENTITY x SYSTEM "file:///etc/hostname">]><ECF>&x;</ECF>',
    ],
    [
      'a parameter entity loading an external DTD',
      '<!DOCTYPE ECF [<!ENTITY % p SYSTEM "http://127.0.0.1:9/x.dtd"> %p;]><ECF/>',
    ],
    ['billion laughs', laughs],
    ['a plain DOCTYPE', '<!DOCTYPE ECF><ECF/>'],
    ['a DOCTYPE in lower case', '<!doctype ECF><ECF/>'],
    [
      'a DOCTYPE as bytes',
      new TextEncoder().encode('<!DOCTYPE ECF [<!ENTITY x SYSTEM "file:///etc/hostname">]><ECF>&x;</ECF>'),
    ],
    ['a 6 MB document', validEcf31().replace('<DetallesItems>', `<DetallesItems>${' '.repeat(6 * 1024 * 1024)}`)],
    ['6 MB of bytes', new Uint8Array(6 * 1024 * 1024).fill(0x20)],
  ];
  for (const [name, xml] of forbidden) {
    it(`refuses ${name} before parsing`, () => {
      const findings = set.validate('e-CF-31', xml);
      assert.deepEqual(
        findings.map((finding) => finding.code),
        ['xml_forbidden'],
      );
      assert.equal(findings[0]?.path, '/');
    });
  }

  // Declaring UTF-16 cannot hide a DOCTYPE from the byte scan: the parser is told the bytes are UTF-8.
  it('reads a UTF-16 document as UTF-8, so a hidden DOCTYPE is malformed, not parsed', () => {
    const text =
      '<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE ECF [<!ENTITY x SYSTEM "file:///etc/hostname">]><ECF>&x;</ECF>';
    const utf16 = new Uint8Array([0xff, 0xfe, ...Array.from(text).flatMap((char) => [char.charCodeAt(0), 0])]);
    const result = codes(utf16);
    assert.ok(
      result.length > 0 && result.every((code) => code === 'xml_malformed' || code === 'xml_forbidden'),
      result.join(),
    );
  });

  it('honours a smaller bound', () => {
    const small = compileSchemaSet(readOfficialXsds(), { maxXmlBytes: 1_000 });
    try {
      assert.deepEqual(
        small.validate('e-CF-31', validEcf31()).map((finding) => finding.code),
        ['xml_forbidden'],
      );
    } finally {
      small.dispose();
    }
  });
});

describe('malformed XML', () => {
  const malformed: [string, string | Uint8Array, number?][] = [
    ['an unclosed element', '<ECF><Encabezado>\n</ECF>', 2],
    ['an empty document', ''],
    ['text that is not XML', 'not xml at all'],
    ['an undeclared entity', '<ECF>&x;</ECF>'],
    ['two roots', '<ECF/><ECF/>'],
    [
      'bytes that are not UTF-8',
      new Uint8Array([0x3c, 0x45, 0x43, 0x46, 0x3e, 0xff, 0xfe, 0x3c, 0x2f, 0x45, 0x43, 0x46, 0x3e]),
    ],
    ['a tag name with a space', '<E CF/>'],
    // The screen's nesting bound (fiscal/xml/xml-shape.ts) stops it before libxml2, whose own depth limit is 256.
    ['elements nested 10,000 deep', `${'<a>'.repeat(10_000)}${'</a>'.repeat(10_000)}`],
  ];
  for (const [name, xml, line] of malformed) {
    it(`reports ${name} as xml_malformed`, () => {
      const findings = set.validate('e-CF-31', xml);
      assert.ok(findings.length > 0);
      assert.deepEqual(
        [...new Set(findings.map((finding) => finding.code))],
        ['xml_malformed' satisfies XsdFindingCode],
      );
      assert.ok(findings.every((finding) => finding.message.length > 0 && !finding.message.endsWith('\n')));
      if (line !== undefined) assert.equal(findings[0]?.line, line);
    });
  }
});

/** V8's collector, to measure memory without the JavaScript garbage a run leaves for it (--expose-gc, set at run time). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

describe('memory', () => {
  it('frees every parsed document: 2,000 validations leave no live libxml2 object and little RSS growth', () => {
    const valid = validEcf31();
    const invalid = valid.replace('<TipoeCF>31<', '<TipoeCF>35<');
    for (let i = 0; i < 200; i++) set.validate('e-CF-31', i % 2 === 0 ? valid : invalid);
    collectGarbage();
    const before = process.memoryUsage().rss;
    diag.configure({ enabled: true });
    try {
      for (let i = 0; i < 2_000; i++)
        set.validate('e-CF-31', i % 3 === 0 ? invalid : i % 3 === 1 ? valid : '<ECF><oops></ECF>');
      assert.deepEqual(diag.report(), {});
    } finally {
      diag.configure({ enabled: false });
    }
    // Measured after a collection: the run's JavaScript garbage (its strings and findings), not yet collected, counted
    // 27 MB in one full run, past the bound with nothing leaked.
    collectGarbage();
    const growthMb = (process.memoryUsage().rss - before) / 1024 / 1024;
    // A leaked 6 KB document costs tens of KB in libxml2's tree; 2,000 of them would be far above this bound.
    assert.ok(growthMb < 24, `RSS grew ${growthMb.toFixed(1)} MB`);
  });
});
