// The tables module taxpayers owns (docs/architecture.md): only its own code names them; other modules read or change
// them through its index.ts. Migrations in /migrations are the source of truth; this mirrors them.

/** DGII's public taxpayer registry (migration 0006). */
export interface TaxpayersTable {
  /** 9-digit RNC or 11-digit cédula. */
  tax_id: string;
  legal_name: string;
  trade_name: string | null;
  economic_activity: string | null;
  /** `yyyy-mm-dd`. */
  started_on: string | null;
  /** As DGII writes it: ACTIVO, SUSPENDIDO, DADO DE BAJA, ... */
  status: string;
  payment_regime: string | null;
  imported_at: Date;
}

export interface TaxpayersTables {
  taxpayers: TaxpayersTable;
}
