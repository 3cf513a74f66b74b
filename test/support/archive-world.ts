// A company with documents in the archive, for the archive verifier's tests: the real app, a certificate, a range
// and documents made through POST /api/v1/documentos.
import assert from 'node:assert/strict';
import { createSelfSignedP12 } from '../../src/platform/crypto/test-certificate.js';
import { ecfDocuments, issuerRnc } from './ecf-documents.js';
import { startTestApp, type TestApp, type TestAppOptions } from './test-app.js';

export interface ArchiveWorld {
  app: TestApp;
  companyId: string;
  apiKey: string;
  documents: string[];
}

/** Installs a self-signed test certificate for `rnc` (valid 2026–2029) through the control plane. */
export async function installTestCertificate(app: TestApp, companyId: string, rnc: string): Promise<void> {
  const certificate = createSelfSignedP12({
    commonName: 'EMPRESA DE PRUEBA',
    serialNumber: rnc,
    notBefore: new Date('2026-01-01'),
    notAfter: new Date('2030-01-01'),
    password: 'clave',
  });
  const installed = await app.sendEvent('certificate.installed', {
    companyId,
    p12Base64: certificate.p12.toString('base64'),
    password: 'clave',
  });
  assert.equal(installed.statusCode, 200, installed.body);
}

export async function startArchiveWorld(documents: number, options: TestAppOptions = {}): Promise<ArchiveWorld> {
  const app = await startTestApp({ roles: { http: true, work: false, schedule: false }, ...options });
  const companyId = await app.provisionCompany({ rnc: issuerRnc });
  await installTestCertificate(app, companyId, issuerRnc);
  const apiKey = (await app.issueKey(companyId, ['documents:create', 'documents:read', 'sequences:manage'])).apiKey;
  const range = await app.app.inject({
    method: 'POST',
    url: '/api/v1/secuencias/rangos',
    headers: { 'x-api-key': apiKey },
    payload: { ecfType: '31', from: 'E310000000001', to: 'E310000001000', expiresOn: '31-12-2027' },
  });
  assert.equal(range.statusCode, 201, range.body);
  const ids: string[] = [];
  for (let i = 0; i < documents; i++) {
    const created = await app.app.inject({
      method: 'POST',
      url: '/api/v1/documentos',
      headers: { 'x-api-key': apiKey },
      payload: ecfDocuments['31'],
    });
    assert.equal(created.statusCode, 201, created.body);
    ids.push(created.json<{ data: { id: string } }>().data.id);
  }
  return { app, companyId, apiKey, documents: ids };
}
