// The general signer, for XML we are given rather than build (the DGII seed, SemillaModel: served with a BOM and
// indented; research/dgii-protocol.md §3). It brings the XML to canonical form through a DOM and then signs it
// exactly as the fast path does, so both produce the same bytes for the same document.
import { toCanonicalDocument } from './canonicalize.js';
import type { SigningKey } from './profile.js';
import { signCanonicalDocument } from './sign-canonical.js';

/**
 * Signs any XML: refuses DOCTYPE and other markup declarations, strips a BOM and whitespace-only text nodes, and
 * returns the canonical form of the document with the Signature appended to the root. The seed's `valor` and
 * `fecha` come back unchanged; namespace declarations may come back reordered (C14N order). Throws XmlInputError.
 */
export function signXml(xml: string, key: SigningKey): string {
  return signCanonicalDocument(toCanonicalDocument(xml), key);
}
