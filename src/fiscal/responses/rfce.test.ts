// The RFCE written from a signed full e-CF 32: values copied from what was signed, the e-CF's own security code,
// valid against RFCE-32.xsd (our schema set and the real xmllint) and, signed, verified by xmlsec1.
import assert from 'node:assert/strict';
import { assertDeliverable } from '../../../test/support/deliverable.js';
import { after, before, describe, it } from 'node:test';
import { ecfDocuments, ownedFieldsFor } from '../../../test/support/ecf-documents.js';
import { readOfficialXsds } from '../../../test/support/dgii-files.js';
import { testSigningKey } from '../../../test/support/xmldsig-kit.js';
import { buildEcf } from '../build/index.js';
import { parseEcf } from '../parse/index.js';
import { readSignatureValue, securityCode, signCanonicalDocument } from '../xmldsig/index.js';
import { compileSchemaSet, type SchemaSet } from '../xsd/index.js';
import { buildRfce } from './rfce.js';

let schemas: SchemaSet;
before(() => {
  schemas = compileSchemaSet(readOfficialXsds());
});
after(() => {
  schemas.dispose();
});

type Json = Record<string, unknown>;

function clone(value: Json): Json {
  return structuredClone(value);
}

function signedEcf(document: Json, type: '31' | '32' = '32'): string {
  const built = buildEcf(document, ownedFieldsFor(type));
  assert.ok(built.ok, built.ok ? '' : JSON.stringify(built.findings));
  return signCanonicalDocument(built.xml, testSigningKey());
}

function codes(result: ReturnType<typeof buildRfce>): string[] {
  return result.ok ? [] : result.findings.map((finding) => finding.code);
}

/** The text of every `<name>` in document order. */
function texts(xml: string, name: string): string[] {
  return [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))].map((match) => match[1] ?? '');
}

/** Signed, the RFCE is valid for our validator and for the real xmllint, and verifies in xmlsec1. */

const rfceTotals = [
  'MontoGravadoTotal',
  'MontoGravadoI1',
  'MontoGravadoI2',
  'MontoGravadoI3',
  'MontoExento',
  'TotalITBIS',
  'TotalITBIS1',
  'TotalITBIS2',
  'TotalITBIS3',
  'MontoImpuestoAdicional',
  'MontoTotal',
  'MontoNoFacturable',
  'MontoPeriodo',
];

/** Every total of the RFCE is the e-CF's, as written there, and none the e-CF has is dropped; how many there are. */
function totalsCopied(ecf: string, rfce: string): number {
  const parsed = parseEcf(ecf);
  assert.ok(parsed.ok);
  const totales = (parsed.document['Encabezado'] as Json)['Totales'] as Json;
  let copied = 0;
  for (const name of rfceTotals) {
    const inEcf = totales[name];
    assert.deepEqual(texts(rfce, name), inEcf === undefined ? [] : [inEcf], name);
    if (inEcf !== undefined) copied++;
  }
  return copied;
}

describe('RFCE', () => {
  it('summarises the realistic e-CF 32 with its values and its own security code, and DGII accepts it', (t) => {
    const ecf = signedEcf(ecfDocuments['32']);
    const built = buildRfce(ecf);
    assert.ok(built.ok, built.ok ? '' : JSON.stringify(built.findings));

    const signatureValue = readSignatureValue(ecf);
    assert.ok(signatureValue !== undefined);
    assert.equal(built.codigoSeguridad, securityCode(signatureValue));
    assert.deepEqual(texts(built.xml, 'CodigoSeguridadeCF'), [securityCode(signatureValue)]);

    assert.equal(
      totalsCopied(ecf, built.xml),
      6,
      'MontoGravadoTotal, MontoGravadoI1, MontoExento, TotalITBIS, TotalITBIS1, MontoTotal',
    );

    assert.equal(
      built.xml,
      '<?xml version="1.0" encoding="utf-8"?><RFCE><Encabezado><Version>1.0</Version>' +
        '<IdDoc><TipoeCF>32</TipoeCF><eNCF>E320000000042</eNCF><TipoIngresos>01</TipoIngresos><TipoPago>1</TipoPago>' +
        '<TablaFormasPago><FormaDePago><FormaPago>1</FormaPago><MontoPago>1430.00</MontoPago></FormaDePago></TablaFormasPago></IdDoc>' +
        `<Emisor><RNCEmisor>${texts(ecf, 'RNCEmisor')[0] ?? ''}</RNCEmisor><RazonSocialEmisor>Ferretería Ñoño &amp; Asociados, S.R.L.</RazonSocialEmisor><FechaEmision>15-11-2026</FechaEmision></Emisor>` +
        '<Comprador><RazonSocialComprador>Consumidor final</RazonSocialComprador></Comprador>' +
        '<Totales><MontoGravadoTotal>1000.00</MontoGravadoTotal><MontoGravadoI1>1000.00</MontoGravadoI1><MontoExento>250.00</MontoExento>' +
        '<TotalITBIS>180.00</TotalITBIS><TotalITBIS1>180.00</TotalITBIS1><MontoTotal>1430.00</MontoTotal></Totales>' +
        `<CodigoSeguridadeCF>${built.codigoSeguridad}</CodigoSeguridadeCF></Encabezado></RFCE>`,
    );
    assertDeliverable(t, 'RFCE-32', built.xml);
  });

  it('copies a buyer RNC, several payment forms, the additional taxes and the non-invoiced amounts, in XSD order', (t) => {
    const document = clone(ecfDocuments['32']);
    const encabezado = document['Encabezado'] as Json;
    const idDoc = encabezado['IdDoc'] as Json;
    idDoc['TablaFormasPago'] = {
      FormaDePago: [
        { FormaPago: 1, MontoPago: '530.00' },
        { FormaPago: 3, MontoPago: '1000.00' },
      ],
    };
    encabezado['Comprador'] = { RNCComprador: '130123456', RazonSocialComprador: 'Cliente <Uno>' };
    // A 10 % legal tip (001) on the first line, and an amount not invoiced.
    encabezado['Totales'] = {
      ...(encabezado['Totales'] as Json),
      MontoImpuestoAdicional: '100.00',
      ImpuestosAdicionales: {
        ImpuestoAdicional: [{ TipoImpuesto: '001', TasaImpuestoAdicional: '10', OtrosImpuestosAdicionales: '100.00' }],
      },
      MontoTotal: '1530.00',
      MontoNoFacturable: '-30.00',
      MontoPeriodo: '1500.00',
    };
    const items = (document['DetallesItems'] as { Item: Json[] }).Item;
    items[0] = { ...items[0], TablaImpuestoAdicional: { ImpuestoAdicional: [{ TipoImpuesto: '001' }] } };
    const ecf = signedEcf(document);
    const built = buildRfce(ecf);
    assert.ok(built.ok, built.ok ? '' : JSON.stringify(built.findings));
    assert.equal(totalsCopied(ecf, built.xml), 9);
    // The table without TasaImpuestoAdicional, which the RFCE does not have; the amounts after MontoTotal, signed.
    assert.match(
      built.xml,
      /<MontoImpuestoAdicional>100\.00<\/MontoImpuestoAdicional><ImpuestosAdicionales><ImpuestoAdicional><TipoImpuesto>001<\/TipoImpuesto><OtrosImpuestosAdicionales>100\.00<\/OtrosImpuestosAdicionales><\/ImpuestoAdicional><\/ImpuestosAdicionales><MontoTotal>1530\.00<\/MontoTotal><MontoNoFacturable>-30\.00<\/MontoNoFacturable><MontoPeriodo>1500\.00<\/MontoPeriodo><\/Totales>/,
    );
    assert.match(
      built.xml,
      /<TablaFormasPago><FormaDePago><FormaPago>1<\/FormaPago><MontoPago>530\.00<\/MontoPago><\/FormaDePago><FormaDePago><FormaPago>3<\/FormaPago><MontoPago>1000\.00<\/MontoPago><\/FormaDePago><\/TablaFormasPago>/,
    );
    assert.match(
      built.xml,
      /<Comprador><RNCComprador>130123456<\/RNCComprador><RazonSocialComprador>Cliente &lt;Uno&gt;<\/RazonSocialComprador><\/Comprador>/,
    );
    assertDeliverable(t, 'RFCE-32', built.xml);
  });

  /** A type 32 of one exempt line of `amount`. */
  function exemptInvoice(amount: string): string {
    const document = clone(ecfDocuments['32']);
    const encabezado = document['Encabezado'] as Json;
    encabezado['Totales'] = { MontoExento: amount, MontoTotal: amount };
    encabezado['IdDoc'] = {
      ...(encabezado['IdDoc'] as Json),
      TablaFormasPago: { FormaDePago: [{ FormaPago: 1, MontoPago: amount }] },
    };
    encabezado['Comprador'] = { RNCComprador: '130123456', RazonSocialComprador: 'Cliente Uno' };
    document['DetallesItems'] = {
      Item: [
        {
          NumeroLinea: 1,
          IndicadorFacturacion: 4,
          NombreItem: 'Maquinaria',
          IndicadorBienoServicio: 1,
          CantidadItem: '1',
          PrecioUnitarioItem: amount,
          MontoItem: amount,
        },
      ],
    };
    return signedEcf(document);
  }

  it('refuses a type 32 of DOP 250,000.00, which goes in full to reception', () => {
    assert.deepEqual(codes(buildRfce(exemptInvoice('250000.00'))), ['rfce_amount_not_below_threshold']);
  });

  it('summarises a type 32 of DOP 249,999.99', (t) => {
    const built = buildRfce(exemptInvoice('249999.99'));
    assert.ok(built.ok, built.ok ? '' : JSON.stringify(built.findings));
    assert.match(
      built.xml,
      /<Totales><MontoExento>249999\.99<\/MontoExento><MontoTotal>249999\.99<\/MontoTotal><\/Totales>/,
    );
    assertDeliverable(t, 'RFCE-32', built.xml);
  });

  it('refuses a type 31', () => {
    const ecf = signedEcf(ecfDocuments['31'], '31');
    assert.deepEqual(codes(buildRfce(ecf)), ['rfce_not_type_32']);
  });

  it('refuses an unsigned e-CF 32', () => {
    const built = buildEcf(ecfDocuments['32'], ownedFieldsFor('32'));
    assert.ok(built.ok);
    assert.deepEqual(codes(buildRfce(built.xml)), ['ecf_not_signed']);
  });

  it('refuses an e-CF 32 changed after signing', () => {
    const ecf = signedEcf(ecfDocuments['32']);
    const tampered = ecf.replace('<MontoExento>250.00</MontoExento>', '<MontoExento>25.00</MontoExento>');
    assert.notEqual(tampered, ecf);
    const result = buildRfce(tampered);
    assert.ok(!result.ok);
    assert.ok(result.findings.length > 0);
    assert.ok(
      result.findings.every((finding) => finding.code === 'ecf_signature_invalid'),
      JSON.stringify(result.findings),
    );
  });

  it('refuses what is not an e-CF at all', () => {
    assert.deepEqual(codes(buildRfce('<!DOCTYPE x [<!ENTITY a "b">]><ECF/>')), ['doctype_not_allowed']);
    assert.deepEqual(codes(buildRfce('<RFCE><Encabezado><Version>1.0</Version></Encabezado></RFCE>')), ['not_an_ecf']);
  });

  it('leaves Comprador out when the e-CF names no buyer (the XSD wants it, the format makes it optional, empty is forbidden)', () => {
    const document = clone(ecfDocuments['32']);
    (document['Encabezado'] as Json)['Comprador'] = { DireccionComprador: 'Calle El Sol #45, Santiago' };
    const built = buildRfce(signedEcf(document));
    assert.ok(built.ok, built.ok ? '' : JSON.stringify(built.findings));
    assert.doesNotMatch(built.xml, /Comprador/);
    assert.match(built.xml, /<\/Emisor><Totales>/);
    // The conflict stays visible: the official XSD refuses an RFCE without Comprador (DGII's behaviour is unknown).
    assert.notDeepEqual(schemas.validate('RFCE-32', signCanonicalDocument(built.xml, testSigningKey())), []);
  });
});
