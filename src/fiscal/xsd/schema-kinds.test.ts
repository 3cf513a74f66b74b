import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detectKind, kindOfSchemaFile, schemaKinds } from './schema-kinds.js';

describe('detectKind', () => {
  const cases: [string, string, string | undefined][] = [
    [
      'an e-CF by its TipoeCF',
      '<?xml version="1.0" encoding="utf-8"?><ECF><Encabezado><Version>1.0</Version><IdDoc><TipoeCF>31</TipoeCF>',
      'e-CF-31',
    ],
    ['each e-CF type', '<ECF><Encabezado><IdDoc><TipoeCF>47</TipoeCF>', 'e-CF-47'],
    [
      'an indented e-CF with a BOM and a comment',
      '\uFEFF<?xml version="1.0"?>\r\n<!-- x -->\n<ECF>\n  <Encabezado>\n    <IdDoc>\n      <TipoeCF> 45 </TipoeCF>',
      'e-CF-45',
    ],
    ['an e-CF of a type DGII does not define', '<ECF><Encabezado><IdDoc><TipoeCF>35</TipoeCF>', undefined],
    ['an e-CF without TipoeCF', '<ECF><Encabezado/></ECF>', undefined],
    ['a consumer-invoice summary', '<RFCE><Encabezado/></RFCE>', 'RFCE-32'],
    ['a receipt', '<ARECF xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">', 'ARECF'],
    ['a commercial approval', '<ACECF>', 'ACECF'],
    ['an annulment', '<ANECF>', 'ANECF'],
    ['a seed', '<?xml version="1.0"?><SemillaModel><valor>x</valor></SemillaModel>', 'Semilla'],
    ['an unknown root', '<Factura/>', undefined],
    ['text that is not XML', 'hello', undefined],
  ];
  for (const [name, xml, kind] of cases) {
    it(`detects ${name}`, () => {
      assert.equal(detectKind(xml), kind);
      assert.equal(detectKind(new TextEncoder().encode(xml)), kind);
    });
  }
});

describe('kindOfSchemaFile', () => {
  it('reads our names for every kind', () => {
    for (const kind of schemaKinds) assert.equal(kindOfSchemaFile(`${kind}.xsd`), kind);
  });

  const dgiiNames: [string, string][] = [
    ['e-CF 31 v.1.0.xsd', 'e-CF-31'],
    ['e-CF 47 v.1.0.xsd', 'e-CF-47'],
    ['RFCE 32 v.1.0.xsd', 'RFCE-32'],
    ['ARECF v1.0.xsd', 'ARECF'],
    ['ACECF v.1.0.xsd', 'ACECF'],
    ['ANECF v.1.0.xsd', 'ANECF'],
    ['Semilla v.1.0.xsd', 'Semilla'],
  ];
  for (const [fileName, kind] of dgiiNames) {
    it(`reads DGII's name ${fileName}`, () => {
      assert.equal(kindOfSchemaFile(fileName), kind);
    });
  }

  it('ignores other files', () => {
    for (const name of ['README.md', 'e-CF-35.xsd', 'xmldsig.xsd', 'ECF.xsd'])
      assert.equal(kindOfSchemaFile(name), undefined);
  });
});
