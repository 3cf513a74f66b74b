import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readDgiiSample, withoutTotalPaginas } from '../../../test/support/dgii-files.js';
import type { EcfObject } from '../build/ecf-json.js';
import { buildEcf } from '../build/build-ecf.js';
import { scanCompactXml } from '../xml/compact-xml.js';
import { decodeXmlText, parseEcf } from './parse-ecf.js';

function parsed(xml: string): EcfObject {
  const result = parseEcf(xml);
  if (!result.ok) assert.fail(`expected a document, got findings: ${JSON.stringify(result.findings, null, 2)}`);
  return result.document;
}

function codes(xml: string): [string, string][] {
  const result = parseEcf(xml);
  return result.ok ? [] : result.findings.map((f) => [f.pointer, f.code]);
}

const minimal = (body: string) =>
  `<?xml version="1.0" encoding="utf-8"?><ECF><Encabezado><Version>1.0</Version><IdDoc><TipoeCF>43</TipoeCF></IdDoc>${body}</Encabezado></ECF>`;

describe('parseEcf', () => {
  it("reads DGII's signed sample e-CF 31 into the model, arrays where the model repeats, the Signature dropped", () => {
    const document = parsed(readDgiiSample('130359334E310000008928.xml'));
    const header = document['Encabezado'] as Partial<Record<string, Record<string, unknown>>>;
    const idDoc = header['IdDoc'];
    const totales = header['Totales'];
    assert.ok(idDoc !== undefined && totales !== undefined);
    assert.equal(idDoc['eNCF'], 'E310000008928');
    assert.equal(idDoc['TipoIngresos'], '05');
    assert.equal(totales['MontoTotal'], '637.2');
    const items = (document['DetallesItems'] as { Item: EcfObject[] }).Item;
    assert.equal(items.length, 1);
    assert.deepEqual(items[0]?.['TablaSubDescuento'], {
      SubDescuento: [{ TipoSubDescuento: '%', SubDescuentoPorcentaje: '10', MontoSubDescuento: '60' }],
    });
    assert.equal((document['Paginacion'] as { Pagina: unknown[] }).Pagina.length, 1);
    assert.equal(document['FechaHoraFirma'], '20-01-2025 09:34:59');
    assert.equal('Signature' in document, false);
  });

  for (const sample of ['130862346E310005000201.xml', 'signedXml.xml']) {
    it(`reads the signed sample ${sample}`, () => {
      assert.equal(parsed(readDgiiSample(sample))['FechaHoraFirma'] !== undefined, true);
    });
  }

  it('rebuilds the sample byte for byte from what it parsed (up to the Signature)', () => {
    const xml = withoutTotalPaginas(readDgiiSample('130359334E310000008928.xml'));
    const document = parsed(xml);
    const { FechaHoraFirma, ...body } = document;
    const header = body['Encabezado'] as Record<string, Record<string, string>>;
    const { eNCF, FechaVencimientoSecuencia, ...idDoc } = header['IdDoc'] ?? {};
    const client = { ...body, Encabezado: { ...header, IdDoc: idDoc } };
    assert.ok(typeof FechaHoraFirma === 'string' && eNCF !== undefined);
    const rebuilt = buildEcf(client, {
      eNCF,
      fechaVencimientoSecuencia: FechaVencimientoSecuencia,
      fechaHoraFirma: FechaHoraFirma,
    });
    assert.ok(rebuilt.ok, JSON.stringify(rebuilt));
    assert.equal(rebuilt.xml, xml.replace(/<Signature[\s\S]*<\/Signature>/, ''));
  });

  it('decodes the predefined entities and character references once, and normalises line ends', () => {
    assert.equal(decodeXmlText('a &amp;amp; b &lt;&gt;&quot;&apos; &#xD;&#233;&#x1F9FE;'), 'a &amp; b <>"\' \ré🧾');
    assert.equal(decodeXmlText('uno\r\ndos\rtres'), 'uno\ndos\ntres');
    assert.equal(decodeXmlText('&nbsp;'), undefined);
    assert.equal(decodeXmlText('&constructor;'), undefined);
  });

  it('accepts a byte-order mark before the declaration', () => {
    assert.equal(parseEcf(`\uFEFF${minimal('')}`).ok, true);
  });

  it('accepts indentation between elements', () => {
    const document = parsed(
      minimal('\n  <Emisor>\n    <RazonSocialEmisor>Peña &amp; Co</RazonSocialEmisor>\n  </Emisor>\n'),
    );
    assert.deepEqual(document['Encabezado'], {
      Version: '1.0',
      IdDoc: { TipoeCF: '43' },
      Emisor: { RazonSocialEmisor: 'Peña & Co' },
    });
  });

  it('refuses a DOCTYPE (no entity a sender defines is ever expanded)', () => {
    const xml = '<?xml version="1.0"?><!DOCTYPE ECF [<!ENTITY x "boom">]><ECF><Encabezado>&x;</Encabezado></ECF>';
    assert.deepEqual(codes(xml), [['/', 'doctype_not_allowed']]);
  });

  it('reports malformed XML, another root, an unknown type', () => {
    assert.deepEqual(codes('<ECF><Encabezado></ECF>'), [['/', 'malformed_xml']]);
    assert.deepEqual(codes('<ARECF><DetalleAcusedeRecibo/></ARECF>'), [['/', 'not_an_ecf']]);
    assert.deepEqual(codes('<ECF><Encabezado><IdDoc><TipoeCF>99</TipoeCF></IdDoc></Encabezado></ECF>'), [
      ['/ECF/Encabezado/IdDoc/TipoeCF', 'unknown_type'],
    ]);
  });

  it('refuses, without throwing, an element fast-xml-parser will not make a property of (constructor)', () => {
    assert.deepEqual(codes('<ECF><!-- general --><Encabezado><constructor>1</constructor></Encabezado></ECF>'), [
      ['/', 'malformed_xml'],
    ]);
  });

  it('reports an unknown element, an empty one, a repeated single one and an undefined entity, with their paths', () => {
    assert.deepEqual(codes(minimal('<Emisor><Foo>1</Foo></Emisor>')), [
      ['/ECF/Encabezado/Emisor/Foo', 'unknown_element'],
    ]);
    assert.deepEqual(codes(minimal('<Emisor><RazonSocialEmisor></RazonSocialEmisor></Emisor>')), [
      ['/ECF/Encabezado/Emisor/RazonSocialEmisor', 'empty_element'],
    ]);
    assert.deepEqual(codes(minimal('<Emisor><RNCEmisor>1</RNCEmisor><RNCEmisor>2</RNCEmisor></Emisor>')), [
      ['/ECF/Encabezado/Emisor/RNCEmisor', 'repeated_element'],
    ]);
    assert.deepEqual(codes(minimal('<Emisor><RazonSocialEmisor>&copy;</RazonSocialEmisor></Emisor>')), [
      ['/ECF/Encabezado/Emisor/RazonSocialEmisor', 'unknown_entity'],
    ]);
  });

  it('refuses a character reference to what XML does not allow (NUL, a lone surrogate, past U+10FFFF), without throwing', () => {
    for (const reference of ['&#0;', '&#x1;', '&#xD800;', '&#x110000;', '&#99999999999;']) {
      assert.deepEqual(
        codes(minimal(`<Emisor><RazonSocialEmisor>A${reference}</RazonSocialEmisor></Emisor>`)),
        [['/ECF/Encabezado/Emisor/RazonSocialEmisor', 'unknown_entity']],
        reference,
      );
    }
    assert.deepEqual(
      parsed(minimal('<Emisor><RazonSocialEmisor>&#x1F600;&#9;&#xD;</RazonSocialEmisor></Emisor>'))['Encabezado'],
      { Version: '1.0', IdDoc: { TipoeCF: '43' }, Emisor: { RazonSocialEmisor: '\u{1F600}\t\r' } },
    );
  });

  it('makes a repeated element an array even when it occurs once', () => {
    const xml = minimal(
      '<Emisor><TablaTelefonoEmisor><TelefonoEmisor>809-555-0101</TelefonoEmisor></TablaTelefonoEmisor></Emisor>',
    );
    const header = parsed(xml)['Encabezado'] as Record<string, Record<string, unknown>>;
    assert.deepEqual(header['Emisor']?.['TablaTelefonoEmisor'], { TelefonoEmisor: ['809-555-0101'] });
  });

  // A comment right after <ECF> sends a document through fast-xml-parser (it is not compact) and changes nothing it
  // reads: both readings must give the same document or the same findings.
  const throughFastXmlParser = (xml: string) => xml.replace('<ECF>', '<ECF><!---->');
  const compactCases: [what: string, xml: string][] = [
    ["DGII's signed sample e-CF 31", readDgiiSample('130359334E310000008928.xml')],
    ['a minimal e-CF', minimal('')],
    ['escaped text', minimal('<Emisor><RazonSocialEmisor>A &amp; B &lt;C&gt;</RazonSocialEmisor></Emisor>')],
    ['an unknown element', minimal('<Nope>1</Nope>')],
    ['a repeated element', minimal('<IdDoc><TipoeCF>43</TipoeCF></IdDoc>')],
    ['an empty element', minimal('<Emisor><RazonSocialEmisor></RazonSocialEmisor></Emisor>')],
    ['text between elements', minimal('x<Emisor><RazonSocialEmisor>A</RazonSocialEmisor></Emisor>')],
    ['text in a leaf with elements', minimal('<Emisor><RazonSocialEmisor>A<B>1</B></RazonSocialEmisor></Emisor>')],
    ['indentation', minimal('\n  <Emisor>\n    <RazonSocialEmisor>A</RazonSocialEmisor>\n  </Emisor>\n')],
    ['an element named __proto__', minimal('<__proto__><A>1</A></__proto__>')],
  ];
  for (const [what, xml] of compactCases) {
    it(`reads ${what} in one pass exactly as through fast-xml-parser`, () => {
      assert.ok(scanCompactXml(xml.replace(/^\uFEFF/, '')) !== undefined, 'the case is compact');
      assert.equal(scanCompactXml(throughFastXmlParser(xml)), undefined);
      const compact = parseEcf(xml);
      const general = parseEcf(throughFastXmlParser(xml));
      if (!what.includes('__proto__')) assert.deepEqual(compact, general);
      else {
        // Refused either way: named in the compact reading, unreadable to fast-xml-parser, which throws on the name.
        assert.deepEqual(codes(xml), [['/ECF/Encabezado/__proto__', 'unknown_element']]);
        assert.deepEqual(general.ok ? [] : general.findings.map((finding) => finding.code), ['malformed_xml']);
      }
    });
  }
});
