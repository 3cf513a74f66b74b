// The one XMLDSig profile DGII accepts (Firmado de e-CF, "Estructura de la firma"; research/dgii-protocol.md §4).
// The Firmado PDF's example breaks these URIs across lines ("RECxml-c14n", "envelope d-signature"): these are the
// exact W3C spellings.
import type { KeyObject } from 'node:crypto';

export const XMLDSIG_NAMESPACE = 'http://www.w3.org/2000/09/xmldsig#';
/** Inclusive C14N 1.0 without comments: the only method the Firmado document names. */
export const C14N_1_0 = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
export const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
export const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
export const ENVELOPED_SIGNATURE = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';

/** The only XML declaration a canonical document may carry (the one every DGII sample has). */
export const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

export interface SigningKey {
  /** An RSA private key (2048 bits or more for DGII). */
  privateKey: KeyObject;
  /** The signer's certificate as PEM; its base64 body goes into KeyInfo/X509Data/X509Certificate. */
  certificatePem: string;
}
