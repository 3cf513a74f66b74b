// A company's rows of a period, read a page at a time in (time, id) order: the audit export's sections
// (modules/archive/export.ts), each read by the module that owns its table. Each page is a range of the table's
// listing index, (company, environment, time desc, id desc), read backwards: a page costs the same on the first day
// of ten years of archive as on the last.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';

/** GMT-4 calendar days as instants: [start, end). */
export interface Period {
  start: Date;
  end: Date;
}

/** Where the previous page ended. */
export interface PagePosition {
  at: Date;
  id: string;
}

/** The company's rows of one environment whose time falls in the period. */
export interface PeriodScope {
  companyId: string;
  environment: FiscalEnvironment;
  period: Period;
}

/** The scope's rows: the company's, of the environment, whose `timeColumn` falls in [start, end). */
export function inPeriod(scope: PeriodScope, timeColumn: string): RawBuilder<SqlBool> {
  const time = sql.ref(timeColumn);
  return sql<SqlBool>`company_id = ${scope.companyId} and environment = ${scope.environment}
    and ${time} >= ${scope.period.start} and ${time} < ${scope.period.end}`;
}

/** The rows after `position` by `timeColumn` and then id; all of them on the first page. */
export function newerThan(position: PagePosition | undefined, timeColumn: string): RawBuilder<SqlBool> {
  return position === undefined
    ? sql<SqlBool>`true`
    : sql<SqlBool>`(${sql.ref(timeColumn)}, id) > (${position.at}, ${position.id})`;
}
