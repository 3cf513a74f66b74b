import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isConsumerSummary, timbreUrl } from './timbre-url.js';

const invoice = {
  TipoeCF: '31',
  RNCEmisor: '130000001',
  RNCComprador: '130000002',
  eNCF: 'E310000000001',
  FechaEmision: '10-10-2020',
  MontoTotal: '02.11',
  FechaHoraFirma: '10-10-2020 09:00:00',
  CodigoSeguridad: 'dcp79q',
};

describe('timbre (QR) URLs', () => {
  it("builds ConsultaTimbre with DGII's parameters, FechaFirma as DGII's examples write it (%20, literal colons)", () => {
    assert.equal(
      timbreUrl('TEST', invoice),
      'https://ecf.dgii.gov.do/testecf/ConsultaTimbre?RncEmisor=130000001&RncComprador=130000002&ENCF=E310000000001&FechaEmision=10-10-2020&MontoTotal=02.11&FechaFirma=10-10-2020%2009:00:00&CodigoSeguridad=dcp79q',
    );
  });

  it('percent-encodes a security code holding base64 characters', () => {
    const url = new URL(timbreUrl('PRODUCTION', { ...invoice, CodigoSeguridad: 'gG/X+Y' }));
    assert.match(url.search, /CodigoSeguridad=gG%2FX%2BY$/);
    assert.equal(url.searchParams.get('CodigoSeguridad'), 'gG/X+Y');
    assert.equal(url.pathname, '/ecf/ConsultaTimbre');
  });

  it('leaves RncComprador out when the e-CF has no buyer', () => {
    const url = timbreUrl('CERT', { ...invoice, TipoeCF: '43', RNCComprador: undefined });
    assert.doesNotMatch(url, /RncComprador/);
    assert.match(url, /^https:\/\/ecf\.dgii\.gov\.do\/certecf\/ConsultaTimbre\?RncEmisor=130000001&ENCF=/);
  });

  it('sends type 32 under DOP 250,000 to ConsultaTimbreFC on the FC host with its four fields', () => {
    assert.equal(
      timbreUrl('TEST', {
        ...invoice,
        TipoeCF: '32',
        RNCEmisor: '131880738',
        eNCF: 'E320000000064',
        MontoTotal: '6225.09',
        CodigoSeguridad: 'uabnyh',
      }),
      'https://fc.dgii.gov.do/testecf/ConsultaTimbreFC?RncEmisor=131880738&ENCF=E320000000064&MontoTotal=6225.09&CodigoSeguridad=uabnyh',
    );
  });

  for (const [amount, summary] of [
    ['249999.99', true],
    ['250000.00', false],
    ['250000', false],
    ['250000.01', false],
    ['0.5', true],
  ] as const) {
    it(`treats type 32 for ${amount} as ${summary ? '' : 'not '}a consumer summary`, () => {
      assert.equal(isConsumerSummary('32', amount), summary);
      assert.equal(isConsumerSummary('31', amount), false);
    });
  }
});
