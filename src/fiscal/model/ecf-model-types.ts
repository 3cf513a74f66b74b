// The shape of our e-CF model: one description of every element of every e-CF type, written from DGII's
// "Formato Comprobante Fiscal Electrónico (e-CF) V1.0" and cross-checked with the official XSDs v1.0.
// The data under ./generated is produced by scripts/generate-ecf-model.ts in this shape.

export const ecfTypes = ['31', '32', '33', '34', '41', '43', '44', '45', '46', '47'] as const;
export type EcfType = (typeof ecfTypes)[number];

/** Formato e-CF p.4: 0 not applicable, 1 mandatory, 2 conditional, 3 optional. */
export type Obligation = 0 | 1 | 2 | 3;

/** Where an element's obligation code came from (see the generated header). */
export type ObligationSource = 'format' | 'derived';

export interface TextType {
  readonly kind: 'text';
  readonly minLength?: number;
  readonly maxLength?: number;
  /** JavaScript source of the XSD pattern, already anchored; compile with the `u` flag. */
  readonly pattern?: string;
}

export interface DecimalType {
  readonly kind: 'decimal';
  readonly totalDigits?: number;
  readonly fractionDigits?: number;
  readonly minInclusive?: string;
  readonly minExclusive?: string;
  readonly maxInclusive?: string;
  readonly pattern?: string;
}

export interface IntegerType {
  readonly kind: 'integer';
  readonly totalDigits?: number;
  readonly minInclusive?: string;
  readonly minExclusive?: string;
  readonly maxInclusive?: string;
  readonly pattern?: string;
}

/** `dd-MM-yyyy` (Formato e-CF: "Fecha válida dd-mm-aaaa"). */
export interface DateType {
  readonly kind: 'date';
}

/** `dd-MM-yyyy HH:mm:ss`, GMT-4 (FechaHoraFirma). */
export interface TimestampType {
  readonly kind: 'timestamp';
}

export interface EnumerationType {
  readonly kind: 'enumeration';
  /** The official enumerations are the same in every type's XSD, so a catalogue reference is enough. */
  readonly catalogue: string;
}

export type DataType = TextType | DecimalType | IntegerType | DateType | TimestampType | EnumerationType;

export interface EcfElement {
  readonly name: string;
  /** Slash-separated element names below ECF, e.g. `Encabezado/IdDoc/TipoeCF`. */
  readonly path: string;
  readonly minOccurs: number;
  readonly maxOccurs: number;
  /** maxOccurs > 1: an array in the JSON model. */
  readonly repeated: boolean;
  /** Obligation for the type this tree describes. */
  readonly obligation: Obligation;
  /** Key into `dataTypes`; leaves only. */
  readonly dataType?: string;
  /** Child elements in XSD order; containers only. */
  readonly children?: readonly EcfElement[];
}

export interface EcfDocumentModel {
  readonly type: EcfType;
  /** Children of the root element `ECF`, in XSD order (the XMLDSig Signature slot is not part of the model). */
  readonly children: readonly EcfElement[];
}

export interface CatalogueEntry {
  readonly code: string;
  readonly label: string;
}

/** Formato e-CF Tabla I: percentages for 001–005 and 023–039, an amount per unit for 006–022. */
export interface AdditionalTaxEntry extends CatalogueEntry {
  readonly rate: string;
  readonly rateKind: 'percent' | 'amount';
}
