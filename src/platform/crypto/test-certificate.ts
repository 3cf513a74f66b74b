// Self-signed .p12 files for the embedded demo company and for tests. node:crypto makes the RSA key (native, fast);
// node-forge builds, signs and packs the certificate because node:crypto cannot issue certificates or write PKCS#12.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

export interface SelfSignedOptions {
  commonName: string;
  /** Goes into the subject's serialNumber attribute, where Dominican CAs put the holder's RNC or cédula. */
  serialNumber?: string;
  organization?: string;
  notBefore: Date;
  notAfter: Date;
  password: string;
  keyBits?: number;
  algorithm?: '3des' | 'aes256';
}

export interface SelfSignedP12 {
  p12: Buffer;
  certificatePem: string;
  privateKeyPem: string;
}

export function createSelfSignedP12(options: SelfSignedOptions): SelfSignedP12 {
  const { privateKey: privateKeyPem } = generateKeyPairSync('rsa', {
    modulusLength: options.keyBits ?? 2048,
    publicExponent: 0x10001,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const privateKey = forge.pki.privateKeyFromPem(privateKeyPem);

  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.setRsaPublicKey(privateKey.n, privateKey.e);
  certificate.serialNumber = randomSerial();
  certificate.validity.notBefore = options.notBefore;
  certificate.validity.notAfter = options.notAfter;
  const name = subjectAttributes(options);
  certificate.setSubject(name);
  certificate.setIssuer(name);
  certificate.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  certificate.sign(privateKey, forge.md.sha256.create());

  const p12Asn1 = forge.pkcs12.toPkcs12Asn1(privateKey, certificate, options.password, {
    algorithm: options.algorithm ?? 'aes256',
    friendlyName: options.commonName,
  });
  return {
    p12: Buffer.from(forge.asn1.toDer(p12Asn1).getBytes(), 'binary'),
    // forge writes PEM with CRLF; node:crypto (and so the rest of the service) writes LF.
    certificatePem: forge.pki.certificateToPem(certificate).replace(/\r\n/g, '\n'),
    privateKeyPem,
  };
}

function subjectAttributes(options: SelfSignedOptions): forge.pki.CertificateField[] {
  const attributes: forge.pki.CertificateField[] = [{ name: 'commonName', value: options.commonName }];
  if (options.serialNumber !== undefined) attributes.push({ name: 'serialNumber', value: options.serialNumber });
  if (options.organization !== undefined) attributes.push({ name: 'organizationName', value: options.organization });
  return attributes;
}

// A positive 128-bit serial: DER integers are signed, so the top bit stays clear (and one below it set so the
// encoding is always 16 bytes).
function randomSerial(): string {
  const bytes = randomBytes(16);
  bytes.writeUInt8((bytes.readUInt8(0) & 0x7f) | 0x40, 0);
  return bytes.toString('hex');
}
