// The API's document body: DGII-shaped JSON. Keys are the XML element names (Encabezado, IdDoc, ...), repeated
// elements are arrays (`DetallesItems: { Item: [...] }`), amounts are decimal strings (numbers accepted).

/** What a client sends: anything JSON, checked against the model before use. */
export type EcfJson = Readonly<Record<string, unknown>>;

/** A document after reading: only model elements, in XSD order, every value as the exact text of the XML. */
export type EcfValue = string | EcfObject | readonly string[] | readonly EcfObject[];
export interface EcfObject {
  readonly [name: string]: EcfValue;
}

/** Values the service sets: the e-NCF and its expiry from the allocated range, the signing time. */
export interface ServiceOwnedFields {
  readonly eNCF: string;
  /** `dd-MM-yyyy`; used only by the types whose XSD has FechaVencimientoSecuencia (not 32 or 34). */
  readonly fechaVencimientoSecuencia?: string;
  /** `dd-MM-yyyy HH:mm:ss`, GMT-4, given by the caller (fiscal/ reads no clock). */
  readonly fechaHoraFirma: string;
}
