// The fast path for documents we build ourselves: the writer already emits C14N 1.0 (canonical-form.ts), so the
// digest is a hash over the root element's bytes, with no DOM and no canonicalizer. The enveloped-signature
// transform removes a Signature that is not there yet, so the bytes hashed are exactly the root as written.
import { createHash, type Hash } from 'node:crypto';
import { assertCanonicalRoot } from './canonical-form.js';
import type { SigningKey } from './profile.js';
import {
  canonicalSignedInfo,
  embeddedSignature,
  signatureValueInBackground,
  signatureValueOf,
} from './signature-element.js';

/**
 * Signs a canonical document (contract in canonical-form.ts) and returns it with the Signature appended as the last
 * child of the root. Throws NonCanonicalDocumentError when the declaration, root start tag or end tag break the
 * contract. The result is byte-stable: send and store it exactly as returned.
 */
export function signCanonicalDocument(document: string, key: SigningKey): string {
  const pending = prepareSignature(document);
  return pending.complete(signatureValueOf(pending.signedInfo, key), key);
}

/** signCanonicalDocument with the RSA operation on the thread pool (signatureValueInBackground): same bytes. */
export async function signCanonicalDocumentInBackground(document: string, key: SigningKey): Promise<string> {
  const pending = prepareSignature(document);
  return pending.complete(await signatureValueInBackground(pending.signedInfo, key), key);
}

/** Everything but the RSA operation: the SignedInfo to sign, and how the signed document is assembled. */
function prepareSignature(document: string): {
  signedInfo: Buffer;
  complete(signatureValue: Buffer, key: SigningKey): string;
} {
  const root = assertCanonicalRoot(document);
  const digestValue = hashUtf8(createHash('sha256'), document, root.rootOffset).digest('base64');
  const closingTagOffset = document.length - root.name.length - 3;
  return {
    signedInfo: canonicalSignedInfo(digestValue, root.prefixedNamespaceDeclarations),
    complete: (signatureValue, key) =>
      document.slice(0, closingTagOffset) +
      embeddedSignature(digestValue, signatureValue, key) +
      document.slice(closingTagOffset),
  };
}

/** Code units per hash update (see hashUtf8). */
const CHUNK = 4096;

/**
 * Feeds `text` from `start` to the hash as UTF-8, in chunks. Node encodes an all-ASCII string to UTF-8 several
 * times faster than one holding any other character (a single `ó` anywhere costs a 68 KB document ~40 µs), so
 * chunks confine the slow encoding to the few that hold accented letters. A chunk never ends between the two
 * halves of a surrogate pair, which would each be encoded as U+FFFD: the bytes are those of the whole string.
 */
export function hashUtf8(hash: Hash, text: string, start: number): Hash {
  let from = start;
  while (from < text.length) {
    let to = from + CHUNK;
    if (to >= text.length) to = text.length;
    else if (isHighSurrogate(text.charCodeAt(to - 1))) to++;
    hash.update(text.slice(from, to), 'utf8');
    from = to;
  }
  return hash;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
