// What sequences asks of the documents issued, whose table is documents' (docs/architecture.md): whether a number
// numbers a document. documents uses sequences (a document's number is taken from it), so sequences may not import
// documents (no import cycles); the application's wiring passes documents' reads in (src/app.ts).
import type { FiscalEnvironment } from '../../config.js';
import type { AnyTrx } from '../../platform/db/transact.js';

export interface IssuedDocuments {
  /** The company's document numbered `encf` in this environment, if any. */
  numbered(
    trx: AnyTrx,
    companyId: string,
    environment: FiscalEnvironment,
    encf: string,
  ): Promise<{ id: string } | undefined>;
  /** The first of the company's documents numbered in [from, to] (e-NCF of one type and width), if any. */
  firstNumberedIn(
    trx: AnyTrx,
    companyId: string,
    environment: FiscalEnvironment,
    from: string,
    to: string,
  ): Promise<{ encf: string } | undefined>;
}
