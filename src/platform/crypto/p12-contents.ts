// The part of .p12 opening that needs node-forge: check the MAC, decrypt the safes and hand back the DER bytes of
// every private key and certificate inside. node:crypto takes over from there (p12.ts).
import forge from 'node-forge';

export interface P12Contents {
  /** PKCS#8 PrivateKeyInfo, DER. */
  keys: Buffer[];
  /** X.509, DER, exactly as issued. */
  certificates: Buffer[];
}

export type P12ContentsResult =
  { ok: true; value: P12Contents } | { ok: false; code: 'p12_wrong_password' | 'p12_unreadable'; message: string };

// forge's types say every bag has `asn1`; at run time it is set only when forge could not parse the key or
// certificate itself (anything but RSA), and `key`/`cert` are then null.
interface ForgeBag {
  type: string;
  key?: forge.pki.rsa.PrivateKey | null;
  cert?: forge.pki.Certificate | null;
  asn1?: forge.asn1.Asn1;
}

const KEY_BAG = '1.2.840.113549.1.12.10.1.1';
const SHROUDED_KEY_BAG = '1.2.840.113549.1.12.10.1.2';
const CERT_BAG = '1.2.840.113549.1.12.10.1.3';

// forge reports every problem as an Error with a fixed English message. A MAC mismatch means a wrong password; so
// does a failed decryption, which is how a wrong password shows when the file has no MAC.
const MAC_MISMATCH = /MAC could not be verified/;
const DECRYPTION_FAILED = /Failed to decrypt|Unable to decrypt/;

export function readP12Contents(p12: Buffer, password: string): P12ContentsResult {
  try {
    return { ok: true, value: decrypt(forge.asn1.fromDer(p12.toString('binary')), password) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (MAC_MISMATCH.test(reason) || DECRYPTION_FAILED.test(reason)) {
      return { ok: false, code: 'p12_wrong_password', message: 'The password does not open this .p12 file.' };
    }
    return {
      ok: false,
      code: 'p12_unreadable',
      message: `The file is not a readable PKCS#12 (.p12/.pfx) file: ${reason}`,
    };
  }
}

function decrypt(pfx: forge.asn1.Asn1, password: string): P12Contents {
  try {
    return collect(forge.pkcs12.pkcs12FromAsn1(pfx, password));
  } catch (error) {
    // PKCS#12's own key derivation and MAC take the password as UTF-16, but PBES2 (AES, OpenSSL 3's default) takes
    // its UTF-8 bytes. forge passes the same JavaScript string to both, so a password with "ñ" or accents passes the
    // MAC and then fails to decrypt (or, now and then, decrypts to garbage). Once the MAC has proved the password
    // right, decrypt again with the UTF-8 bytes.
    const macPassed = hasMac(pfx) && !(error instanceof Error && MAC_MISMATCH.test(error.message));
    const sameInUtf8 = Buffer.byteLength(password, 'utf8') === password.length;
    if (!macPassed || sameInUtf8) throw error;
    return collect(forge.pkcs12.pkcs12FromAsn1(withoutMac(pfx), forge.util.encodeUtf8(password)));
  }
}

// PFX ::= SEQUENCE { version, authSafe, macData OPTIONAL }
function hasMac(pfx: forge.asn1.Asn1): boolean {
  return Array.isArray(pfx.value) && pfx.value.length > 2;
}

function withoutMac(pfx: forge.asn1.Asn1): forge.asn1.Asn1 {
  return forge.asn1.create(
    pfx.tagClass,
    pfx.type,
    pfx.constructed,
    Array.isArray(pfx.value) ? pfx.value.slice(0, 2) : pfx.value,
  );
}

function collect(pfx: forge.pkcs12.Pkcs12Pfx): P12Contents {
  const contents: P12Contents = { keys: [], certificates: [] };
  for (const safe of pfx.safeContents) {
    for (const bag of safe.safeBags as ForgeBag[]) {
      if (bag.type === KEY_BAG || bag.type === SHROUDED_KEY_BAG) contents.keys.push(keyDer(bag));
      if (bag.type === CERT_BAG) contents.certificates.push(certificateDer(bag));
    }
  }
  return contents;
}

function keyDer(bag: ForgeBag): Buffer {
  if (bag.key) return derOf(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(bag.key)));
  if (bag.asn1) return derOf(bag.asn1);
  throw new Error('a key bag holds no key');
}

function certificateDer(bag: ForgeBag): Buffer {
  if (bag.cert) return derOf(certificateAsn1(bag.cert));
  if (bag.asn1) return derOf(bag.asn1);
  throw new Error('a certificate bag holds no certificate');
}

// forge keeps the signed part (tbsCertificate) as it was read but re-encodes the outer signature algorithm with its
// own choice of parameters. RFC 5280 §4.1.1.2 requires the outer algorithm to equal the one inside tbsCertificate,
// so copying that one gives back the CA's exact bytes, which end up in every signed e-CF's KeyInfo.
function certificateAsn1(cert: forge.pki.Certificate): forge.asn1.Asn1 {
  const { asn1 } = forge;
  const fields = cert.tbsCertificate.value;
  const signature: unknown = cert.signature;
  if (!Array.isArray(fields) || typeof signature !== 'string') return forge.pki.certificateToAsn1(cert);
  const hasVersion = fields[0]?.tagClass === asn1.Class.CONTEXT_SPECIFIC;
  const algorithm = fields[hasVersion ? 2 : 1];
  if (algorithm === undefined) return forge.pki.certificateToAsn1(cert);
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    cert.tbsCertificate,
    algorithm,
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.BITSTRING, false, '\u0000' + signature),
  ]);
}

function derOf(value: forge.asn1.Asn1): Buffer {
  return Buffer.from(forge.asn1.toDer(value).getBytes(), 'binary');
}
