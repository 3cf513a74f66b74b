// The fast path for documents we build ourselves: the writer already emits C14N 1.0 (canonical-form.ts), so the
// digest is a hash over the root element's bytes, with no DOM and no canonicalizer. The enveloped-signature
// transform removes a Signature that is not there yet, so the bytes hashed are exactly the root as written.
import { createHash } from 'node:crypto';
import { assertCanonicalRoot } from './canonical-form.js';
import type { SigningKey } from './profile.js';
import { signatureElement } from './signature-element.js';

/**
 * Signs a canonical document (contract in canonical-form.ts) and returns it with the Signature appended as the last
 * child of the root. Throws NonCanonicalDocumentError when the declaration, root start tag or end tag break the
 * contract. The result is byte-stable: send and store it exactly as returned.
 */
export function signCanonicalDocument(document: string, key: SigningKey): string {
  const root = assertCanonicalRoot(document);
  const digestValue = createHash('sha256').update(document.slice(root.rootOffset), 'utf8').digest('base64');
  const closingTagOffset = document.length - root.name.length - 3;
  return document.slice(0, closingTagOffset) + signatureElement(digestValue, root.prefixedNamespaceDeclarations, key) + document.slice(closingTagOffset);
}
