// Signs an XML file the way DGII wants (enveloped XMLDSig, inclusive C14N, RSA-SHA256, whitespace-only text
// removed first), for trying the DGII sandbox by hand:
//   npx tsx scripts/sign-xml.ts <file.xml> <certificate.p12> <password>   (signed XML on stdout)
//   npx tsx scripts/sign-xml.ts --new-certificate <out.p12> <password>      (a self-signed test certificate)
import { readFileSync, writeFileSync } from 'node:fs';
import { X509Certificate, createHash } from 'node:crypto';
import { signXml } from '../src/fiscal/xmldsig/index.js';
import { openP12 } from '../src/platform/crypto/p12.js';
import { createSelfSignedP12 } from '../src/platform/crypto/test-certificate.js';

const [first, second, third] = process.argv.slice(2);
if (first === '--new-certificate' && second !== undefined && third !== undefined) {
  const now = Date.now();
  const created = createSelfSignedP12({
    commonName: 'PRUEBA SANDBOX',
    serialNumber: 'IDCDO-00199999996',
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 365 * 86_400_000),
    password: third,
  });
  writeFileSync(second, created.p12, { mode: 0o600 });
  const fingerprint = createHash('sha256').update(new X509Certificate(created.certificatePem).raw).digest('hex');
  process.stdout.write(`${second} written; SHA-256 fingerprint (delegate it in the sandbox): ${fingerprint}\n`);
} else if (first !== undefined && second !== undefined && third !== undefined) {
  const opened = openP12(readFileSync(second), third);
  if (!opened.ok) {
    process.stderr.write(`${opened.message}\n`);
    process.exit(1);
  }
  process.stdout.write(
    signXml(readFileSync(first, 'utf8'), {
      privateKey: opened.value.privateKey,
      certificatePem: opened.value.certificatePem,
    }),
  );
} else {
  process.stderr.write(
    'usage: npx tsx scripts/sign-xml.ts <file.xml> <certificate.p12> <password> | --new-certificate <out.p12> <password>\n',
  );
  process.exit(2);
}
