// Signed e-CFs and RFCEs for the sandbox's reception tests, built the way the service builds them (buildEcf, then
// signCanonicalDocument; buildRfce from the signed e-CF 32), and the client side of sending and polling them.
import assert from 'node:assert/strict';
import { createPrivateKey } from 'node:crypto';
import { buildEcf } from '../../src/fiscal/build/index.js';
import type { EcfType } from '../../src/fiscal/model/ecf-model-types.js';
import { buildRfce } from '../../src/fiscal/responses/rfce.js';
import { signCanonicalDocument, type SigningKey } from '../../src/fiscal/xmldsig/index.js';
import { createSelfSignedP12 } from '../../src/platform/crypto/test-certificate.js';
import { buyerRnc, ecfDocuments, issuerRnc } from './ecf-documents.js';
import { xmlForm, type RunningSandbox } from './sandbox-kit.js';
import { testSigningKey } from './xmldsig-kit.js';

export { buyerRnc, issuerRnc };

type Json = Record<string, unknown>;

export const sandboxTypes: readonly EcfType[] = ['31', '32', '33', '34', '41', '43', '44', '45', '46', '47'];

import { encfOf } from '../../src/fiscal/encf.js';

export { encfOf };

export interface DocumentOptions {
  rnc?: string;
  /** Changes to the JSON before it is built (a copy: the shared fixtures stay as they are). */
  change?: (document: Json) => void;
  key?: SigningKey;
  /** Changes to the built XML before it is signed (to make a document the builder would never write). */
  edit?: (xml: string) => string;
}

export interface SignedDocument {
  xml: string;
  encf: string;
  rnc: string;
  filename: string;
}

function child(parent: Json, name: string): Json {
  const value = parent[name];
  assert.ok(typeof value === 'object' && value !== null && !Array.isArray(value), `${name} is a group`);
  return value as Json;
}

export function encabezadoOf(document: Json): Json {
  return child(document, 'Encabezado');
}

/** A signed e-CF of the type with e-NCF `sequence`, issued by `rnc` (the fixtures' issuer by default). */
export function signedEcf(type: EcfType, sequence: number, options: DocumentOptions = {}): SignedDocument {
  const document = structuredClone<Json>(ecfDocuments[type]);
  const rnc = options.rnc ?? issuerRnc;
  child(encabezadoOf(document), 'Emisor')['RNCEmisor'] = rnc;
  options.change?.(document);
  const encf = encfOf(type, sequence);
  const hasExpiry = type !== '32' && type !== '34';
  const built = buildEcf(document, {
    eNCF: encf,
    ...(hasExpiry ? { fechaVencimientoSecuencia: '31-12-2027' } : {}),
    fechaHoraFirma: '15-11-2026 10:31:07',
  });
  assert.ok(built.ok, `e-CF ${type} builds: ${built.ok ? '' : JSON.stringify(built.findings)}`);
  const xml = options.edit === undefined ? built.xml : options.edit(built.xml);
  return { xml: signCanonicalDocument(xml, options.key ?? testSigningKey()), encf, rnc, filename: `${rnc}${encf}.xml` };
}

/** A type 32 of DOP 300,000.00 (exempt), which goes in full to reception with an identified buyer (§8.1). */
export function largeConsumerInvoice(document: Json): void {
  const encabezado = encabezadoOf(document);
  encabezado['IdDoc'] = {
    TipoeCF: '32',
    TipoIngresos: '01',
    TipoPago: 1,
    TablaFormasPago: { FormaDePago: [{ FormaPago: 1, MontoPago: '300000.00' }] },
  };
  encabezado['Comprador'] = { RNCComprador: buyerRnc, RazonSocialComprador: 'Distribuidora Peña & Hijos' };
  encabezado['Totales'] = { MontoExento: '300000.00', MontoTotal: '300000.00' };
  document['DetallesItems'] = {
    Item: [
      {
        NumeroLinea: 1,
        IndicadorFacturacion: 4,
        NombreItem: 'Lote de libros técnicos',
        IndicadorBienoServicio: 1,
        CantidadItem: '1',
        PrecioUnitarioItem: '300000.00',
        MontoItem: '300000.00',
      },
    ],
  };
}

/** The signed RFCE of a signed e-CF 32 under DOP 250,000.00, as the service writes it. */
export function signedRfce(
  signedEcf32: SignedDocument,
  options: { key?: SigningKey; edit?: (xml: string) => string } = {},
): SignedDocument & { codigoSeguridad: string } {
  const rfce = buildRfce(signedEcf32.xml);
  assert.ok(rfce.ok, `RFCE builds: ${rfce.ok ? '' : JSON.stringify(rfce.findings)}`);
  const xml = options.edit === undefined ? rfce.xml : options.edit(rfce.xml);
  return {
    ...signedEcf32,
    xml: signCanonicalDocument(xml, options.key ?? testSigningKey()),
    codigoSeguridad: rfce.codigoSeguridad,
  };
}

/** A key whose certificate nobody delegated. */
export function strangerKey(): SigningKey {
  const stranger = createSelfSignedP12({
    commonName: 'OTRA PERSONA',
    serialNumber: 'IDCDO-00100000001',
    notBefore: new Date('2026-01-01'),
    notAfter: new Date('2030-01-01'),
    password: 'x',
  });
  return { privateKey: createPrivateKey(stranger.privateKeyPem), certificatePem: stranger.certificatePem };
}

/** Registers an electronic issuer with the test certificate delegated and a testecf range of 1..1000 per type. */
export async function registerIssuer(
  running: Pick<RunningSandbox, 'admin'>,
  rnc: string,
  options: { expiresOn?: string; name?: string; certificates?: string[] } = {},
): Promise<void> {
  const registered = await running.admin('POST', '/taxpayers', {
    rnc,
    name: options.name ?? 'EMISOR DE PRUEBA SRL',
    certificates: options.certificates ?? [testSigningKey().certificatePem],
  });
  assert.equal(registered.status, 201);
  for (const type of sandboxTypes) {
    const expiresOn = type === '32' || type === '34' ? null : (options.expiresOn ?? '2027-12-31');
    const range = await running.admin('POST', `/taxpayers/${rnc}/ranges`, {
      environment: 'testecf',
      type,
      from: 1,
      to: 1000,
      expiresOn,
    });
    assert.equal(range.status, 201);
  }
}

export async function postDocument(
  url: string,
  path: string,
  token: string | undefined,
  xml: string,
  filename: string,
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}/testecf/${path}`, {
    method: 'POST',
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    body: xmlForm(xml, filename),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

export async function getJson(
  url: string,
  pathAndQuery: string,
  token: string | undefined,
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}/testecf/${pathAndQuery}`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

export interface ResultBody {
  trackId: string;
  codigo: string;
  estado: string;
  rnc: string | null;
  encf: string | null;
  secuenciaUtilizada: boolean;
  fechaRecepcion: string | null;
  mensajes: { valor: string; codigo: number }[];
}

export async function sendEcf(url: string, token: string, document: SignedDocument): Promise<string> {
  const { status, body } = await postDocument(
    url,
    'recepcion/api/facturaselectronicas',
    token,
    document.xml,
    document.filename,
  );
  assert.equal(status, 200, JSON.stringify(body));
  const { trackId } = body as { trackId: string };
  assert.match(trackId, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  return trackId;
}

export async function resultOf(url: string, token: string, trackId: string): Promise<ResultBody> {
  const { status, body } = await getJson(url, `consultaresultado/api/consultas/estado?trackid=${trackId}`, token);
  assert.equal(status, 200);
  return body as ResultBody;
}
