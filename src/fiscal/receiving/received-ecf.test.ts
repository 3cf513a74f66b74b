import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ecfDocuments, issuerRnc, ownedFieldsFor } from '../../../test/support/ecf-documents.js';
import { officialSchemas } from '../../../test/support/sandbox-kit.js';
import { testSigningKey } from '../../../test/support/xmldsig-kit.js';
import { buildEcf } from '../build/index.js';
import type { EcfType } from '../model/ecf-model-types.js';
import { signCanonicalDocument } from '../xmldsig/index.js';
import { identifiersOf, isTypeSentToReceiver, judgeReceivedEcf, type ReceivedIdentifiers } from './received-ecf.js';

const receiver = '131880738';

function signed(buyer: string, type: EcfType = '31'): Buffer {
  const document = structuredClone(ecfDocuments[type]) as { Encabezado: { Comprador: Record<string, unknown> } };
  document.Encabezado.Comprador['RNCComprador'] = buyer;
  const built = buildEcf(document, ownedFieldsFor(type));
  assert.ok(built.ok);
  return Buffer.from(signCanonicalDocument(built.xml, testSigningKey()));
}

async function judge(xml: Buffer, duplicate = false) {
  const asked: ReceivedIdentifiers[] = [];
  const verdict = await judgeReceivedEcf(xml, identifiersOf(xml.toString('utf8'), ''), {
    schemas: officialSchemas(),
    receiverRnc: receiver,
    alreadyReceived: (ids) => {
      asked.push(ids);
      return Promise.resolve(duplicate);
    },
  });
  return { verdict, asked };
}

const reasonOf = (verdict: Awaited<ReturnType<typeof judge>>['verdict']) =>
  verdict.kind === 'not_received' ? `${verdict.reason} ${verdict.outcome}` : verdict.kind;

describe("the received e-CF: identifiers and the receiver's verdict", () => {
  it('reads RNCEmisor and eNCF from the text, else from the file name, else zeros', () => {
    assert.deepEqual(
      identifiersOf('<ECF><RNCEmisor> 131880681 </RNCEmisor><eNCF>E310000000001</eNCF></ECF>', 'x.xml'),
      { RNCEmisor: '131880681', eNCF: 'E310000000001' },
    );
    assert.deepEqual(identifiersOf('<ECF><Encabezado>', '131880681E310000000007.XML'), {
      RNCEmisor: '131880681',
      eNCF: 'E310000000007',
    });
    assert.deepEqual(identifiersOf('<ECF><RNCEmisor>12</RNCEmisor><eNCF>E31</eNCF>', 'documento.xml'), {
      RNCEmisor: '000000000',
      eNCF: 'E000000000000',
    });
  });

  it('only 31, 33, 34 and 44 travel between taxpayers', () => {
    assert.deepEqual(['31', '32', '33', '34', '41', '43', '44', '45', '46', '47'].filter(isTypeSentToReceiver), [
      '31',
      '33',
      '34',
      '44',
    ]);
  });

  it("Estado 0 with what it read, after asking about duplicates with the document's identifiers", async () => {
    const { verdict, asked } = await judge(signed(receiver));
    assert.ok(verdict.kind === 'received');
    assert.deepEqual(
      [verdict.facts.ecfType, verdict.facts.rncComprador, verdict.facts.fechaEmision],
      ['31', receiver, '15-11-2026'],
    );
    assert.deepEqual(asked, [{ RNCEmisor: issuerRnc, eNCF: 'E310000000042' }]);
  });

  it('checks in the order 1, 2, 3, 4, and asks about duplicates only for a document whose signature verifies', async () => {
    const broken = (xml: Buffer) => Buffer.from(xml.toString('utf8').replace('Martillo', 'Martilla'));
    const xsdBroken = (xml: Buffer) =>
      Buffer.from(
        xml
          .toString('utf8')
          .replace('<FechaEmision>15-11-2026</FechaEmision>', '<FechaEmision>2026-11-15</FechaEmision>'),
      );
    assert.equal(reasonOf((await judge(broken(xsdBroken(signed('130000006'))), true)).verdict), '1 not_received:xsd');
    assert.equal(
      reasonOf((await judge(signed(receiver, '41'), true)).verdict),
      '1 not_received:type_not_sent_to_receivers',
    );
    const badSignature = await judge(broken(signed('130000006')), true);
    assert.equal(reasonOf(badSignature.verdict), '2 not_received:signature');
    assert.deepEqual(badSignature.asked, []);
    assert.equal(reasonOf((await judge(signed('130000006'), true)).verdict), '3 not_received:duplicate');
    assert.equal(reasonOf((await judge(signed('130000006'), false)).verdict), '4 not_received:buyer');
  });

  it('unreadable: not XML, a DTD, another root; an ECF with errors is a specification error instead', async () => {
    for (const text of [
      'no es XML',
      '<!DOCTYPE ECF [<!ENTITY x "y">]><ECF>&x;</ECF>',
      '<Factura/>',
      '<ECF><Encabezado>',
    ]) {
      assert.equal((await judge(Buffer.from(text))).verdict.kind, 'unreadable', text);
    }
    assert.equal(
      reasonOf((await judge(Buffer.from('<ECF><Encabezado><Version>1.0</Version></Encabezado></ECF>'))).verdict),
      '1 not_received:specification',
    );
  });

  it('judges a compact e-CF (read once) as it judges the same e-CF through the general parsers', async () => {
    const compact = signed(receiver);
    // A comment is dropped by C14N (the signature still verifies) but is not compact: the general parsers read it.
    const general = Buffer.from(compact.toString('utf8').replace('<ECF>', '<ECF><!-- otra forma -->'));
    const [fast, slow] = [await judge(compact), await judge(general)];
    assert.equal(fast.verdict.kind, 'received');
    assert.deepEqual(fast, slow);
    const tampered = (xml: Buffer) => Buffer.from(xml.toString('utf8').replace('Martillo', 'Martilla'));
    assert.equal(reasonOf((await judge(tampered(compact))).verdict), '2 not_received:signature');
    assert.equal(reasonOf((await judge(tampered(general))).verdict), '2 not_received:signature');
    const unknownElement = (xml: Buffer) =>
      Buffer.from(xml.toString('utf8').replace('<FechaHoraFirma>', '<Otro>1</Otro><FechaHoraFirma>'));
    assert.equal(reasonOf((await judge(unknownElement(compact))).verdict), '1 not_received:specification');
    assert.equal(reasonOf((await judge(unknownElement(general))).verdict), '1 not_received:specification');
  });
});
