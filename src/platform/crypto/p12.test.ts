import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate, createHash, randomBytes, sign, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';
import { assessCertificate, openP12 } from './p12.js';
import type { OpenedCertificate, P12Result } from './p12.js';
import { requireTool } from '../../../test/support/tools.js';
import { createSelfSignedP12 } from './test-certificate.js';
import type { SelfSignedOptions } from './test-certificate.js';

const password = 'Prueba-2026';
const notBefore = new Date('2026-01-01T00:00:00Z');
const notAfter = new Date('2028-01-01T00:00:00Z');
const now = new Date('2026-06-15T12:00:00Z');
const holder: SelfSignedOptions = {
  commonName: 'Demo Comercial SRL',
  serialNumber: '131000001',
  organization: 'Demo Comercial SRL',
  notBefore,
  notAfter,
  password,
};

// The algorithm OIDs as they appear in DER, to prove each fixture really uses the encoding its test names.
const oids = {
  rc2With40Bits: '060a2a864886f70d010c0106', // pbeWithSHAAnd40BitRC2-CBC
  tripleDes: '060a2a864886f70d010c0103', // pbeWithSHAAnd3-KeyTripleDES-CBC
  pbes2: '06092a864886f70d01050d',
  aes256Cbc: '060960864801650304012a',
};

function uses(p12: Buffer, oid: string): boolean {
  return p12.includes(Buffer.from(oid, 'hex'));
}

// Without the openssl CLI, legacy RC2-40 .p12 files (the format Dominican CAs issue), EC keys and openssl
// interoperability are not tested: those tests ask requireTool for it.

let dir = '';
const demo = createSelfSignedP12({ ...holder, algorithm: '3des' });
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'ecf-p12-'));
});
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Packs a key and certificate with the openssl CLI; extra arguments choose the encoding (`-legacy`). */
function opensslP12(keyPem: string, certificatePem: string, exportPassword: string, ...extra: string[]): Buffer {
  const name = randomBytes(4).toString('hex');
  const [key, certificate, p12] = ['key.pem', 'cert.pem', 'out.p12'].map((file) => join(dir, `${name}-${file}`)) as [
    string,
    string,
    string,
  ];
  writeFileSync(key, keyPem);
  writeFileSync(certificate, certificatePem);
  openssl(
    'pkcs12',
    '-export',
    ...extra,
    '-in',
    certificate,
    '-inkey',
    key,
    '-passout',
    `pass:${exportPassword}`,
    '-out',
    p12,
  );
  return readFileSync(p12);
}

function opened(result: P12Result): OpenedCertificate {
  if (!result.ok) assert.fail(`expected the .p12 to open, got ${result.code}: ${result.message}`);
  return result.value;
}

function failureCode(result: P12Result): string {
  assert.equal(result.ok, false, 'expected the .p12 to be refused');
  return result.code;
}

function forgeP12(key: forge.pki.rsa.PrivateKey | null, certificates: forge.pki.Certificate[]): Buffer {
  // forge derives the localKeyId from the first certificate, so without one it must not try.
  const p12 = forge.pkcs12.toPkcs12Asn1(key, certificates, password, {
    algorithm: '3des',
    generateLocalKeyId: certificates.length > 0,
  });
  return Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary');
}

function assertUsableSigner(certificate: OpenedCertificate, expectedPem: string): void {
  assert.equal(certificate.certificatePem, expectedPem, 'the certificate comes back byte for byte as issued');
  assert.match(certificate.subject, /serialNumber=131000001/);
  assert.equal(certificate.keyType, 'rsa');
  assert.equal(certificate.keyBits, 2048);
  assert.deepEqual(certificate.notBefore, notBefore);
  assert.deepEqual(certificate.notAfter, notAfter);
  assert.equal(
    certificate.fingerprintSha256,
    createHash('sha256').update(new X509Certificate(expectedPem).raw).digest('hex'),
  );
  assert.match(certificate.privateKeyPem, /^-----BEGIN PRIVATE KEY-----/);
  assert.deepEqual(certificate.chainPem, []);
  const data = Buffer.from('<ECF>firmado</ECF>');
  const signature = sign('sha256', data, certificate.privateKey);
  assert.equal(verify('sha256', data, certificate.certificate.publicKey, signature), true);
  assert.deepEqual(assessCertificate(certificate, now), []);
}

describe('openP12', () => {
  it('opens a legacy RC2-40 .p12 made by openssl pkcs12 -export -legacy', (t) => {
    if (!requireTool(t, 'openssl')) return;
    const p12 = opensslP12(demo.privateKeyPem, demo.certificatePem, password, '-legacy');
    assert.ok(uses(p12, oids.rc2With40Bits), 'openssl -legacy should encrypt the certificates with RC2-40');
    assertUsableSigner(opened(openP12(p12, password)), demo.certificatePem);
  });

  it("opens openssl's default .p12 (PBES2, AES-256-CBC)", (t) => {
    if (!requireTool(t, 'openssl')) return;
    const p12 = opensslP12(demo.privateKeyPem, demo.certificatePem, password);
    assert.ok(uses(p12, oids.pbes2) && uses(p12, oids.aes256Cbc));
    assertUsableSigner(opened(openP12(p12, password)), demo.certificatePem);
  });

  for (const [name, passwordWithAccents] of [
    ['legacy', 'Contraseña-ÁÉ'],
    ['AES', 'Contraseña-ÁÉ'],
  ] as const) {
    it(`opens an openssl ${name} .p12 whose password has an ñ and accents`, (t) => {
      if (!requireTool(t, 'openssl')) return;
      const p12 = opensslP12(
        demo.privateKeyPem,
        demo.certificatePem,
        passwordWithAccents,
        ...(name === 'legacy' ? ['-legacy'] : []),
      );
      assertUsableSigner(opened(openP12(p12, passwordWithAccents)), demo.certificatePem);
      assert.equal(failureCode(openP12(p12, 'Contrasena-AE')), 'p12_wrong_password');
    });
  }

  it('opens the 3DES and AES-256 files createSelfSignedP12 makes', () => {
    assert.ok(uses(demo.p12, oids.tripleDes));
    assertUsableSigner(opened(openP12(demo.p12, password)), demo.certificatePem);
    const aes = createSelfSignedP12({ ...holder, algorithm: 'aes256' });
    assert.ok(uses(aes.p12, oids.pbes2) && uses(aes.p12, oids.aes256Cbc));
    assertUsableSigner(opened(openP12(aes.p12, password)), aes.certificatePem);
  });

  it('answers p12_wrong_password for a wrong password, without echoing either password', () => {
    const result = openP12(demo.p12, 'not-the-password');
    assert.equal(failureCode(result), 'p12_wrong_password');
    assert.ok(!result.ok);
    assert.ok(!result.message.includes('not-the-password') && !result.message.includes(password));
  });

  it('answers p12_unreadable for random bytes, an empty file and a PEM certificate', () => {
    for (const bytes of [randomBytes(2048), Buffer.alloc(0), Buffer.from(demo.certificatePem)]) {
      assert.equal(failureCode(openP12(bytes, password)), 'p12_unreadable');
    }
  });

  it('answers p12_no_private_key for a .p12 holding only a certificate', () => {
    const p12 = forgeP12(null, [forge.pki.certificateFromPem(demo.certificatePem)]);
    assert.equal(failureCode(openP12(p12, password)), 'p12_no_private_key');
  });

  it('answers p12_no_certificate for a .p12 holding only a key', () => {
    const p12 = forgeP12(forge.pki.privateKeyFromPem(demo.privateKeyPem), []);
    assert.equal(failureCode(openP12(p12, password)), 'p12_no_certificate');
  });

  it('answers p12_key_mismatch when the key belongs to none of the certificates', () => {
    const other = createSelfSignedP12({ ...holder, commonName: 'Otra Empresa SRL' });
    const p12 = forgeP12(forge.pki.privateKeyFromPem(demo.privateKeyPem), [
      forge.pki.certificateFromPem(other.certificatePem),
    ]);
    assert.equal(failureCode(openP12(p12, password)), 'p12_key_mismatch');
  });

  it('picks the certificate that matches the key, whatever its position, and returns the others as the chain', () => {
    const issuer = createSelfSignedP12({ ...holder, commonName: 'Autoridad de Prueba' });
    const certificates = [issuer.certificatePem, demo.certificatePem].map((pem) => forge.pki.certificateFromPem(pem));
    const result = opened(openP12(forgeP12(forge.pki.privateKeyFromPem(demo.privateKeyPem), certificates), password));
    assert.equal(result.certificatePem, demo.certificatePem);
    assert.deepEqual(result.chainPem, [issuer.certificatePem]);
  });

  it('opens an EC .p12 made by openssl, which assessCertificate then rejects as not RSA', (t) => {
    if (!requireTool(t, 'openssl')) return;
    const key = join(dir, 'ec-key.pem');
    const certificate = join(dir, 'ec-cert.pem');
    openssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      certificate,
      '-subj',
      '/CN=Firma EC/serialNumber=131000001',
      '-days',
      '30',
    );
    const p12 = opensslP12(readFileSync(key, 'utf8'), readFileSync(certificate, 'utf8'), password);
    const result = opened(openP12(p12, password));
    assert.equal(result.keyType, 'ec');
    assert.equal(result.keyBits, undefined);
    assert.equal(result.certificatePem, readFileSync(certificate, 'utf8'));
    assert.deepEqual(
      assessCertificate(result, result.notBefore).map((finding) => finding.code),
      ['certificate_not_rsa'],
    );
  });
});

describe('assessCertificate', () => {
  const certificate = (): OpenedCertificate => opened(openP12(demo.p12, password));

  it('accepts an RSA-2048 certificate from its first to its last valid second', () => {
    assert.deepEqual(assessCertificate(certificate(), notBefore), []);
    assert.deepEqual(assessCertificate(certificate(), notAfter), []);
  });

  it('reports certificate_not_yet_valid before notBefore and certificate_expired after notAfter', () => {
    const early = assessCertificate(certificate(), new Date(notBefore.getTime() - 1000));
    assert.deepEqual(
      early.map((finding) => finding.code),
      ['certificate_not_yet_valid'],
    );
    assert.match(early[0]!.message, /2026-01-01T00:00:00.000Z/);
    const late = assessCertificate(certificate(), new Date(notAfter.getTime() + 1000));
    assert.deepEqual(
      late.map((finding) => finding.code),
      ['certificate_expired'],
    );
  });

  it('reports certificate_key_too_small for a 1024-bit RSA key', () => {
    const small = createSelfSignedP12({ ...holder, keyBits: 1024 });
    const result = opened(openP12(small.p12, password));
    assert.equal(result.keyBits, 1024);
    assert.deepEqual(
      assessCertificate(result, now).map((finding) => finding.code),
      ['certificate_key_too_small'],
    );
  });
});

describe('createSelfSignedP12', () => {
  it('puts the RNC in the subject serialNumber and makes a file openssl itself can read', (t) => {
    if (!requireTool(t, 'openssl')) return;
    const path = join(dir, 'demo.p12');
    writeFileSync(path, demo.p12);
    const text = execFileSync('openssl', ['pkcs12', '-in', path, '-passin', `pass:${password}`, '-nokeys'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    assert.ok(text.includes(demo.certificatePem.trim()));
    assert.match(
      new X509Certificate(demo.certificatePem).subject,
      /^CN=Demo Comercial SRL\nserialNumber=131000001\nO=Demo Comercial SRL$/,
    );
  });
});
