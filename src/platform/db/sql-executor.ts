/** What every database user outside Kysely (pg-boss, probes) needs: run one statement, get rows back. */
export interface SqlExecutor {
  executeSql(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
}
