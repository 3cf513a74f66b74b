// The judgement of a receiver's ARECF, and its shortcut past libxml2 (plainlyFollowsXsd) held against DGII's
// official ARECF.xsd: over shapes valid and invalid, the shortcut only ever says yes where the XSD finds nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileSchemaSet } from '../xsd/index.js';
import { readOfficialXsds } from '../../../test/support/dgii-files.js';
import { testSigningKey } from '../../../test/support/xmldsig-kit.js';
import { scanCompactXml } from '../xml/compact-xml.js';
import { screenUntrustedXml } from '../xml/screen-untrusted-xml.js';
import { signXml } from '../xmldsig/index.js';
import { buildArecf } from './arecf.js';
import { judgeArecfAnswer, plainlyFollowsXsd } from './arecf-answer.js';

const schemas = compileSchemaSet(readOfficialXsds());
const about = { RNCEmisor: '131880681', RNCComprador: '130862346', eNCF: 'E310000000001' };
const received = buildArecf({ ...about, Estado: '0', FechaHoraAcuseRecibo: '21-11-2026 12:00:00' });
const notReceived = (motivo: '1' | '2' | '3' | '4') =>
  buildArecf({ ...about, Estado: '1', CodigoMotivoNoRecibido: motivo, FechaHoraAcuseRecibo: '21-11-2026 12:00:00' });
const changed = (xml: string, from: string, to: string) => {
  assert.ok(xml.includes(from), `the fixture has ${from}`);
  return xml.replace(from, to);
};

/** [what, the XML, what the shortcut answers, whether ARECF.xsd finds nothing]. */
const shapes: readonly (readonly [string, string, boolean, boolean])[] = [
  ['received (Estado 0)', received, true, true],
  ...(['1', '2', '3', '4'] as const).map(
    (motivo) => [`not received, motivo ${motivo}`, notReceived(motivo), true, true] as const,
  ),
  ['signed', signXml(received, testSigningKey()), true, true],
  [
    'an 11-digit RNC, an 11-character eNCF',
    changed(changed(received, '131880681', '40212345678'), 'E310000000001', 'E3100000001'),
    true,
    true,
  ],
  ['one-digit hours, minutes and seconds', changed(received, '12:00:00', '1:2:3'), true, true],
  // Valid, but not the plain spelling: libxml2 judges them.
  ['Version 1 (the decimal 1.0)', changed(received, '<Version>1.0</Version>', '<Version>1</Version>'), false, true],
  [
    'Estado with spaces (an integer, collapsed)',
    changed(received, '<Estado>0</Estado>', '<Estado> 0 </Estado>'),
    false,
    true,
  ],
  ['whitespace between elements', changed(received, '<Version>', '\n  <Version>'), false, true],
  [
    'another element in place of the Signature',
    changed(received, '</DetalleAcusedeRecibo>', '</DetalleAcusedeRecibo><Nota>x</Nota>'),
    false,
    true,
  ],
  [
    // The second is the XSD's xs:any (processContents skip), whatever it holds.
    'DetalleAcusedeRecibo twice',
    changed(received, '</ARECF>', '<DetalleAcusedeRecibo><Version>1.0</Version></DetalleAcusedeRecibo></ARECF>'),
    false,
    true,
  ],
  // Invalid.
  ['Version 2.0', changed(received, '<Version>1.0</Version>', '<Version>2.0</Version>'), false, false],
  ['a 10-digit RNC', changed(received, '131880681', '1318806810'), false, false],
  ['a 12-character eNCF', changed(received, 'E310000000001', 'E31000000001'), false, false],
  ['an eNCF with a dash', changed(received, 'E310000000001', 'E31-000000001'), false, false],
  ['Estado 2', changed(received, '<Estado>0</Estado>', '<Estado>2</Estado>'), false, false],
  ['motivo 5', changed(notReceived('1'), '<CodigoMotivoNoRecibido>1<', '<CodigoMotivoNoRecibido>5<'), false, false],
  ['day 32', changed(received, '21-11-2026', '32-11-2026'), false, false],
  ['a one-digit day', changed(received, '21-11-2026', '1-11-2026'), false, false],
  ['an ISO date', changed(received, '21-11-2026 12:00:00', '2026-11-21T12:00:00'), false, false],
  ['no Version', changed(received, '<Version>1.0</Version>', ''), false, false],
  [
    'no FechaHoraAcuseRecibo',
    changed(received, '<FechaHoraAcuseRecibo>21-11-2026 12:00:00</FechaHoraAcuseRecibo>', ''),
    false,
    false,
  ],
  [
    'RNCComprador before RNCEmisor',
    changed(
      received,
      '<RNCEmisor>131880681</RNCEmisor><RNCComprador>130862346</RNCComprador>',
      '<RNCComprador>130862346</RNCComprador><RNCEmisor>131880681</RNCEmisor>',
    ),
    false,
    false,
  ],
  [
    'motivo after the date',
    changed(
      notReceived('2'),
      '<CodigoMotivoNoRecibido>2</CodigoMotivoNoRecibido><FechaHoraAcuseRecibo>21-11-2026 12:00:00</FechaHoraAcuseRecibo>',
      '<FechaHoraAcuseRecibo>21-11-2026 12:00:00</FechaHoraAcuseRecibo><CodigoMotivoNoRecibido>2</CodigoMotivoNoRecibido>',
    ),
    false,
    false,
  ],
  ['an element DGII does not define', changed(received, '<Estado>', '<Nota>x</Nota><Estado>'), false, false],
  ['eNCF twice', changed(received, '<Estado>', '<eNCF>E310000000002</eNCF><Estado>'), false, false],
  ['text in DetalleAcusedeRecibo', changed(received, '<Estado>', 'x<Estado>'), false, false],
  [
    'two elements after DetalleAcusedeRecibo',
    changed(received, '</DetalleAcusedeRecibo>', '</DetalleAcusedeRecibo><Nota>x</Nota><Otra>y</Otra>'),
    false,
    false,
  ],

  [
    'DetalleAcusedeRecibo as text',
    changed(
      received,
      /<DetalleAcusedeRecibo>.*<\/DetalleAcusedeRecibo>/.exec(received)?.[0] ?? '',
      '<DetalleAcusedeRecibo>x</DetalleAcusedeRecibo>',
    ),
    false,
    false,
  ],
];

describe('plainlyFollowsXsd, against ARECF.xsd', () => {
  for (const [what, xml, plain, valid] of shapes)
    it(`${what}: ${plain ? 'taken' : 'left to libxml2'}, ${valid ? 'valid' : 'invalid'}`, () => {
      assert.equal(schemas.validate('ARECF', xml).length === 0, valid, 'the XSD');
      const screened = screenUntrustedXml(xml);
      assert.ok(screened.ok);
      const compact = scanCompactXml(screened.text);
      assert.ok(compact !== undefined, 'every shape here is compact, so the check is asked');
      assert.equal(plainlyFollowsXsd(compact.content), plain);
    });
});

describe('judgeArecfAnswer', () => {
  const key = testSigningKey();
  const judged = (xml: string, withSchemas = true) =>
    judgeArecfAnswer(Buffer.from(xml), about, withSchemas ? schemas : undefined);

  it('takes a signed ARECF about this e-CF, with or without the XSDs loaded', () => {
    for (const xml of [signXml(received, key), signXml(notReceived('3'), key)])
      for (const withSchemas of [true, false]) {
        const answer = judged(xml, withSchemas);
        assert.equal(answer.kind, 'valid');
        assert.equal(answer.arecf.eNCF, about.eNCF);
        assert.equal(answer.signerCertificatePem, key.certificatePem);
      }
  });

  it('takes valid shapes the shortcut leaves to libxml2, pretty-printed ones verified by the general path', () => {
    const pretty = received.replace(/></g, '>\n  <');
    for (const xml of [changed(received, '<Version>1.0</Version>', '<Version>1</Version>'), pretty])
      assert.equal(judged(signXml(xml, key)).kind, 'valid', xml);
  });

  it("refuses a signed ARECF the XSD refuses, in the XSD's words", () => {
    const answer = judged(signXml(changed(received, '<Version>1.0</Version>', '<Version>2.0</Version>'), key));
    assert.equal(answer.kind, 'invalid');
    assert.match(answer.reason, /^the ARECF does not follow DGII's XSD: .*Version/);
  });

  it('refuses an unsigned ARECF, one altered after signing, and one about another e-CF', () => {
    const signed = signXml(received, key);
    const cases: [string, RegExp][] = [
      [received, /signature does not verify/],
      [
        changed(signed, '<Estado>0</Estado>', '<Estado>1</Estado><CodigoMotivoNoRecibido>3</CodigoMotivoNoRecibido>'),
        /signature does not verify/,
      ],
      [signXml(changed(received, 'E310000000001', 'E310000000002'), key), /about another e-CF: eNCF E310000000002/],
      ['<ACECF/>', /not an ARECF|not well-formed/],
    ];
    for (const [xml, reason] of cases) {
      const answer = judged(xml);
      assert.equal(answer.kind, 'invalid', xml);
      assert.match(answer.reason, reason);
    }
  });
});
