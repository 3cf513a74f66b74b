import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import type { CompaniesTable, CompanyCertificatesTable, CompaniesTables } from './tables.js';
import type { Trx } from '../../platform/db/transact.js';

export type CompanyRow = Selectable<CompaniesTable>;
/** The company without its logo bytes, which only the printed representation reads (findPrintSettings). */
export type CompanyProfileRow = Omit<CompanyRow, 'print_logo'>;
export type CertificateRow = Selectable<CompanyCertificatesTable>;

/** Locks the row for the rest of the transaction, so concurrent changes to one company apply in turn. */
export function lockCompanyById(trx: Trx<CompaniesTables>, id: string): Promise<CompanyRow | undefined> {
  return trx.selectFrom('companies').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function lockCompanyByRnc(trx: Trx<CompaniesTables>, rnc: string): Promise<CompanyRow | undefined> {
  return trx.selectFrom('companies').selectAll().where('rnc', '=', rnc).forUpdate().executeTakeFirst();
}

export function insertCompany(trx: Trx<CompaniesTables>, row: Insertable<CompaniesTable>): Promise<CompanyRow> {
  return trx.insertInto('companies').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateCompany(
  trx: Trx<CompaniesTables>,
  id: string,
  changes: Updateable<CompaniesTable>,
): Promise<CompanyRow> {
  return trx.updateTable('companies').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function companyIds(db: Db<CompaniesTables>): Promise<string[]> {
  return (await db.selectFrom('companies').select('id').orderBy('id').execute()).map((row) => row.id);
}

/** Whether another company's receiver answers to this segment (its receiver_segment, or its RNC when it has none). */
export async function receiverSegmentTaken(
  trx: Trx<CompaniesTables>,
  segment: string,
  companyId: string | undefined,
): Promise<boolean> {
  const row = await trx
    .selectFrom('companies')
    .select('id')
    .where((eb) =>
      eb.or([
        eb('receiver_segment', '=', segment),
        eb.and([eb('rnc', '=', segment), eb('receiver_segment', 'is', null)]),
      ]),
    )
    .$if(companyId !== undefined, (query) => query.where('id', '<>', companyId ?? ''))
    .executeTakeFirst();
  return row !== undefined;
}

/** The company (without its logo bytes) and its active certificate in one query (the hot path of every document). */
export async function findCompanyWithCertificate(
  db: Db<CompaniesTables> | Trx<CompaniesTables>,
  id: string,
): Promise<{ company: CompanyProfileRow; certificate: CertificateRow | undefined } | undefined> {
  const row = await db
    .selectFrom('companies')
    .leftJoin('company_certificates as c', (join) =>
      join.onRef('c.company_id', '=', 'companies.id').on('c.status', '=', 'active'),
    )
    .select([
      'companies.id',
      'companies.rnc',
      'companies.legal_name',
      'companies.trade_name',
      'companies.address',
      'companies.municipality',
      'companies.province',
      'companies.plan',
      'companies.capabilities',
      'companies.permissions',
      'companies.suspended_reason',
      'companies.certification_enabled',
      'companies.created_at',
      'companies.updated_at',
      'companies.receiver_segment',
      'companies.print_logo_sha256',
      'companies.print_logo_width',
      'companies.print_logo_height',
      'companies.print_format',
      'companies.print_footer',
      'companies.delivery_automatic',
      'companies.delivery_sender_name',
      'companies.delivery_reply_to',
    ])
    .select([
      'c.id as c_id',
      'c.status as c_status',
      'c.subject as c_subject',
      'c.issuer as c_issuer',
      'c.serial_number as c_serial_number',
      'c.not_before as c_not_before',
      'c.not_after as c_not_after',
      'c.fingerprint_sha256 as c_fingerprint_sha256',
      'c.certificate_pem as c_certificate_pem',
      'c.chain_pem as c_chain_pem',
      'c.private_key_sealed as c_private_key_sealed',
      'c.installed_at as c_installed_at',
      'c.replaced_at as c_replaced_at',
    ])
    .where('companies.id', '=', id)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  const {
    c_id,
    c_status,
    c_subject,
    c_issuer,
    c_serial_number,
    c_not_before,
    c_not_after,
    c_fingerprint_sha256,
    c_certificate_pem,
    c_chain_pem,
    c_private_key_sealed,
    c_installed_at,
    c_replaced_at,
    ...company
  } = row;
  const certificate =
    c_id === null ||
    c_status === null ||
    c_subject === null ||
    c_issuer === null ||
    c_serial_number === null ||
    c_not_before === null ||
    c_not_after === null ||
    c_fingerprint_sha256 === null ||
    c_certificate_pem === null ||
    c_chain_pem === null ||
    c_private_key_sealed === null ||
    c_installed_at === null
      ? undefined
      : {
          id: c_id,
          company_id: company.id,
          status: c_status,
          subject: c_subject,
          issuer: c_issuer,
          serial_number: c_serial_number,
          not_before: c_not_before,
          not_after: c_not_after,
          fingerprint_sha256: c_fingerprint_sha256,
          certificate_pem: c_certificate_pem,
          chain_pem: c_chain_pem,
          private_key_sealed: c_private_key_sealed,
          installed_at: c_installed_at,
          replaced_at: c_replaced_at,
        };
  return { company, certificate };
}

export function findPrintSettings(db: Db<CompaniesTables>, id: string) {
  return db
    .selectFrom('companies')
    .select(['print_logo', 'print_logo_sha256', 'print_format', 'print_footer'])
    .where('id', '=', id)
    .executeTakeFirst();
}

export function findActiveCertificate(
  db: Db<CompaniesTables> | Trx<CompaniesTables>,
  companyId: string,
): Promise<CertificateRow | undefined> {
  return db
    .selectFrom('company_certificates')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('status', '=', 'active')
    .executeTakeFirst();
}

export async function replaceActiveCertificate(
  trx: Trx<CompaniesTables>,
  row: Insertable<CompanyCertificatesTable>,
  at: Date,
): Promise<CertificateRow> {
  await trx
    .updateTable('company_certificates')
    .set({ status: 'replaced', replaced_at: at })
    .where('company_id', '=', row.company_id)
    .where('status', '=', 'active')
    .execute();
  return trx.insertInto('company_certificates').values(row).returningAll().executeTakeFirstOrThrow();
}
