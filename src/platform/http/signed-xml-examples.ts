// Illustrations of the signed XML some routes take, for the contract's examples. They cannot be posted as they stand:
// a real one is signed by the sender's certificate at the time of the call (test/openapi-examples.test.ts signs its
// own). The demo company (999999992) issues; the buyer is fictitious, with a valid check digit.
const signature =
  '<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo>…</SignedInfo>' +
  '<SignatureValue>kq3XzT…</SignatureValue><KeyInfo><X509Data><X509Certificate>MIIF…</X509Certificate>' +
  '</X509Data></KeyInfo></Signature>';

/** An e-CF 31 as its issuer signed it. */
export const signedEcfIllustration =
  '<?xml version="1.0" encoding="utf-8"?><ECF><Encabezado><Version>1.0</Version><IdDoc><TipoeCF>31</TipoeCF>' +
  '<eNCF>E310000000001</eNCF><FechaVencimientoSecuencia>31-12-2027</FechaVencimientoSecuencia>…</IdDoc>' +
  '<Emisor><RNCEmisor>999999992</RNCEmisor>…<FechaEmision>27-11-2026</FechaEmision></Emisor>' +
  '<Comprador><RNCComprador>130123454</RNCComprador>…</Comprador><Totales>…<MontoTotal>1180.00</MontoTotal>' +
  '</Totales></Encabezado><DetallesItems>…</DetallesItems><FechaHoraFirma>27-11-2026 10:30:00</FechaHoraFirma>' +
  `${signature}</ECF>`;

/** A seed (semilla) signed to prove who holds the certificate. */
export const signedSeedIllustration =
  '<?xml version="1.0" encoding="utf-8"?><SemillaModel><valor>…</valor>' +
  `<fecha>2026-11-27T10:30:00.0000000-04:00</fecha>${signature}</SemillaModel>`;

/** A buyer's commercial approval (ACECF) of an e-CF 31 the demo company issued. */
export const signedAcecfIllustration =
  '<?xml version="1.0" encoding="utf-8"?><ACECF><DetalleAprobacionComercial><Version>1.0</Version>' +
  '<RNCEmisor>999999992</RNCEmisor><eNCF>E310000000001</eNCF><FechaEmision>27-11-2026</FechaEmision>' +
  '<MontoTotal>1180.00</MontoTotal><RNCComprador>130123454</RNCComprador><Estado>1</Estado>' +
  '<FechaHoraAprobacionComercial>27-11-2026 11:05:00</FechaHoraAprobacionComercial>' +
  `</DetalleAprobacionComercial>${signature}</ACECF>`;
