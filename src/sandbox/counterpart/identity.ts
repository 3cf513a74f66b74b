// The counterpart taxpayer's identity: an invented RNC (valid check digit, no real taxpayer) and a self-signed
// certificate made on first start and kept in the sandbox's settings, so its ARECFs verify the same way across
// restarts. It is a test identity of the emulator, not a customer's secret.
import { createPrivateKey } from 'node:crypto';
import { createSelfSignedP12 } from '../../platform/crypto/test-certificate.js';
import type { Clock } from '../../platform/clock.js';
import type { CounterpartIdentity } from '../http/context.js';
import { certificateFingerprint } from '../http/sessions.js';
import type { SandboxDb } from '../state/schema.js';
import { readSetting, writeSetting } from '../state/settings.js';
import { upsertTaxpayer } from '../state/taxpayers.js';

export const counterpartRnc = '999999907';
export const counterpartName = 'CONTRAPARTE DE PRUEBA DEL SANDBOX SRL';

interface StoredIdentity {
  privateKeyPem: string;
  certificatePem: string;
}

export async function loadCounterpartIdentity(db: SandboxDb, clock: Clock): Promise<CounterpartIdentity> {
  let stored = await readSetting<StoredIdentity>(db, 'counterpart_identity');
  if (stored === undefined) {
    const now = clock.now();
    const created = createSelfSignedP12({
      commonName: counterpartName,
      serialNumber: `RNC${counterpartRnc}`,
      organization: counterpartName,
      notBefore: new Date(now.getTime() - 86_400_000),
      notAfter: new Date(now.getTime() + 10 * 365 * 86_400_000),
      password: 'sandbox',
    });
    stored = { privateKeyPem: created.privateKeyPem, certificatePem: created.certificatePem };
    await writeSetting(db, 'counterpart_identity', stored);
  }
  const certificateSha256 = certificateFingerprint(stored.certificatePem);
  await upsertTaxpayer(db, { rnc: counterpartRnc, name: counterpartName, certificateSha256: [certificateSha256] });
  return {
    rnc: counterpartRnc,
    name: counterpartName,
    key: { privateKey: createPrivateKey(stored.privateKeyPem), certificatePem: stored.certificatePem },
    certificateSha256,
  };
}
