// DGII as this instance reaches it: its service status and next maintenance window (statusecf), and each company's
// authentication in the instance's environment through the connection test the API offers (POST
// /api/v1/dgii/prueba-conexion). The probe's report never holds DGII's token, so no line can print it.
import type { Config } from '../config.js';
import type { DgiiClient, ProbeReport } from '../dgii/index.js';
import { formatDgiiTimestamp } from '../fiscal/dates.js';
import { environmentSegment, type FiscalEnvironment } from '../fiscal/environment.js';
import type { DgiiSessionsService } from '../modules/dgii-sessions/index.js';
import type { CheckResult } from './check.js';
import type { CompanyRef } from './master-key-check.js';

/** DGII's own messages, when it gave any, after what the client made of them. */
function said(messages: readonly { valor: string }[] | undefined): string {
  const text = (messages ?? []).map((message) => message.valor).join('; ');
  return text === '' ? '' : `: ${text}`;
}

export async function checkDgiiStatus(
  config: Pick<Config, 'fiscalEnv' | 'dgii'>,
  dgii: DgiiClient,
  now: Date,
): Promise<CheckResult[]> {
  const result = (status: CheckResult['status'], line: string): CheckResult[] => [
    { check: 'dgii-status', status, line },
  ];
  const where = `DGII's status service (${config.dgii.statusBaseUrl})`;
  const status = await dgii.serviceStatus();
  switch (status.kind) {
    case 'no_credentials':
      return result(
        'warning',
        "DGII_STATUS_API_KEY is unset: the service cannot see DGII's maintenance windows; ask DGII for a status API key and set it",
      );
    case 'unauthorized':
      return result('failure', `${where} refused DGII_STATUS_API_KEY${said(status.messages)}: check the key DGII gave`);
    case 'transient':
      return result('failure', `${where} did not answer (${status.detail}): check this host's access to it`);
    case 'status': {
      const window = (start: Date, end: Date) => `${formatDgiiTimestamp(start)} to ${formatDgiiTimestamp(end)} (GMT-4)`;
      if (status.activeWindow !== null)
        return result(
          'warning',
          `DGII's ${config.fiscalEnv} services are in a maintenance window, ${window(status.activeWindow.start, status.activeWindow.end)}: sends wait until it ends`,
        );
      const next = status.windows.find((announced) => announced.start.getTime() > now.getTime());
      const upcoming =
        next === undefined
          ? 'no maintenance window announced'
          : `next maintenance window ${window(next.start, next.end)}`;
      return status.available
        ? result('ok', `DGII's ${config.fiscalEnv} services are "${status.estado}"; ${upcoming}`)
        : result('warning', `DGII's ${config.fiscalEnv} services are "${status.estado}"; ${upcoming}`);
    }
  }
}

/** The first step of the connection test that failed, as a line; the session's end when every step passed. */
function authenticationLine(report: ProbeReport, environment: string): Pick<CheckResult, 'status' | 'line'> {
  const failed = report.steps.find((step) => !step.ok);
  if (failed === undefined)
    return {
      status: 'ok',
      line: `DGII authenticates it in ${environment}${report.sessionExpiresAt === null ? '' : ` (a session until ${report.sessionExpiresAt.toISOString()})`}`,
    };
  const detail = failed.detail === '' ? failed.outcome : `${failed.outcome}: ${failed.detail}`;
  switch (failed.step) {
    case 'credentials':
      return {
        status: 'failure',
        line: `it has no way to authenticate with DGII (${detail}): install its certificate`,
      };
    case 'authentication':
      return {
        status: 'failure',
        line:
          failed.outcome === 'transient'
            ? `DGII did not answer its authentication in ${environment} (${detail}): check this host's access to DGII_BASE_URL`
            : `DGII refused its authentication in ${environment} (${detail}): check that its certificate is delegated to act for it in DGII's portal`,
      };
    case 'query':
      return {
        status: 'failure',
        line: `DGII authenticated it in ${environment}, then refused a query with its session (${detail})`,
      };
  }
}

export async function checkDgiiAuthentication(
  company: CompanyRef,
  sessions: DgiiSessionsService,
  environment: FiscalEnvironment,
): Promise<CheckResult> {
  const report = await sessions.testConnection(company.id);
  const named = `${environment} (${environmentSegment[environment]})`;
  return { check: 'dgii-auth', company: company.rnc, ...authenticationLine(report, named) };
}
