// Who DGII is when it tests a taxpayer's receiver in steps 9 and 11 (research/certification.md §1, "Step 9 in
// detail"): its simulated taxpayer 131880681 issues the e-CF and receives the approvals, and a DGII *test*
// certificate signs them, whose holder is a person, not that RNC ("PEDRO PEREZ MARTINEZ", CA "VIAFIRMA TEST"). The
// sandbox makes such a certificate on first use and keeps it, like the counterpart's (counterpart/identity.ts).
import { createPrivateKey } from 'node:crypto';
import type { SigningKey } from '../../fiscal/xmldsig/index.js';
import { createSelfSignedP12 } from '../../platform/crypto/test-certificate.js';
import type { SandboxContext } from '../http/context.js';
import { certificateFingerprint } from '../http/sessions.js';
import { readSetting, writeSetting } from '../state/settings.js';
import { forgetState } from '../state/state-cache.js';
import { upsertTaxpayer } from '../state/taxpayers.js';

/** DGII's test RNC (dgii-protocol.md §6.4; valid check digit). */
export const dgiiTestRnc = '131880681';
const dgiiTestName = 'CONTRIBUYENTE DE PRUEBA DGII';

export interface DgiiTestIdentity {
  rnc: string;
  name: string;
  key: SigningKey;
}

interface StoredKey {
  privateKeyPem: string;
  certificatePem: string;
}

const settingKey = 'dgii_test_identity';

/** The identity, made and registered (taxpayer 131880681, electronic, its certificate delegated) on first use. */
export async function dgiiTestIdentity(context: Pick<SandboxContext, 'db' | 'clock'>): Promise<DgiiTestIdentity> {
  const { db } = context;
  let stored = await readSetting<StoredKey>(db, settingKey);
  if (stored === undefined) {
    const now = context.clock.now();
    const created = createSelfSignedP12({
      commonName: 'PEDRO PEREZ MARTINEZ',
      // A cédula-style holder id, as DGII's test certificate carries (IDCDO-…), not the RNC it signs for.
      serialNumber: 'IDCDO-00199999996',
      organization: 'VIAFIRMA TEST',
      notBefore: new Date(now.getTime() - 86_400_000),
      notAfter: new Date(now.getTime() + 10 * 365 * 86_400_000),
      password: 'sandbox',
    });
    stored = { privateKeyPem: created.privateKeyPem, certificatePem: created.certificatePem };
    await writeSetting(db, settingKey, stored);
  }
  const registered = await db
    .selectFrom('sandbox_taxpayers')
    .select('rnc')
    .where('rnc', '=', dgiiTestRnc)
    .executeTakeFirst();
  // An operator may have registered 131880681 already: its entry is left as it is, the certificate added.
  if (registered === undefined)
    await upsertTaxpayer(db, {
      rnc: dgiiTestRnc,
      name: dgiiTestName,
      certificateSha256: [certificateFingerprint(stored.certificatePem)],
    });
  else {
    await db
      .insertInto('sandbox_delegations')
      .values({ rnc: dgiiTestRnc, certificate_sha256: certificateFingerprint(stored.certificatePem) })
      .onConflict((conflict) => conflict.doNothing())
      .execute();
    forgetState(db);
  }
  return {
    rnc: dgiiTestRnc,
    name: dgiiTestName,
    key: { privateKey: createPrivateKey(stored.privateKeyPem), certificatePem: stored.certificatePem },
  };
}
