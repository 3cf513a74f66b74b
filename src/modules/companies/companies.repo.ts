import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import type { CompaniesTable, CompanyCertificatesTable } from '../../platform/db/schema.js';
import type { Trx } from '../../platform/db/transact.js';

export type CompanyRow = Selectable<CompaniesTable>;
export type CertificateRow = Selectable<CompanyCertificatesTable>;

export function findCompanyById(db: Db | Trx, id: string): Promise<CompanyRow | undefined> {
  return db.selectFrom('companies').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Locks the row for the rest of the transaction, so concurrent changes to one company apply in turn. */
export function lockCompanyById(trx: Trx, id: string): Promise<CompanyRow | undefined> {
  return trx.selectFrom('companies').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function lockCompanyByRnc(trx: Trx, rnc: string): Promise<CompanyRow | undefined> {
  return trx.selectFrom('companies').selectAll().where('rnc', '=', rnc).forUpdate().executeTakeFirst();
}

export function insertCompany(trx: Trx, row: Insertable<CompaniesTable>): Promise<CompanyRow> {
  return trx.insertInto('companies').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateCompany(trx: Trx, id: string, changes: Updateable<CompaniesTable>): Promise<CompanyRow> {
  return trx.updateTable('companies').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export function findActiveCertificate(db: Db | Trx, companyId: string): Promise<CertificateRow | undefined> {
  return db.selectFrom('company_certificates').selectAll().where('company_id', '=', companyId).where('status', '=', 'active').executeTakeFirst();
}

export async function replaceActiveCertificate(trx: Trx, row: Insertable<CompanyCertificatesTable>, at: Date): Promise<CertificateRow> {
  await trx
    .updateTable('company_certificates')
    .set({ status: 'replaced', replaced_at: at })
    .where('company_id', '=', row.company_id)
    .where('status', '=', 'active')
    .execute();
  return trx.insertInto('company_certificates').values(row).returningAll().executeTakeFirstOrThrow();
}
