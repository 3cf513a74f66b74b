// What each of `ecf doctor`'s checks gives: one line or a few, each ok, a warning or a failure, with what to do.
export type CheckStatus = 'ok' | 'warning' | 'failure';

export interface CheckResult {
  /** The check's name, as printed (`database`, `storage`, `certificate`, …). */
  check: string;
  /** The RNC of the company a per-company check is about. */
  company?: string;
  status: CheckStatus;
  line: string;
}

const severity: Record<CheckStatus, number> = { ok: 0, warning: 1, failure: 2 };

export function worst(statuses: readonly CheckStatus[]): CheckStatus {
  return statuses.reduce<CheckStatus>((found, status) => (severity[status] > severity[found] ? status : found), 'ok');
}

/** 0 when every check is ok, 1 with warnings, 2 with a failure. */
export function exitCodeOf(results: readonly CheckResult[]): number {
  return severity[worst(results.map((result) => result.status))];
}

/** Why something failed, in one line: the error's own message, never a stack. */
export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0] || error.name : String(error);
}

/** Grouped thousands, as the lines print counts. */
export const grouped = (count: number): string => count.toLocaleString('en-US');
