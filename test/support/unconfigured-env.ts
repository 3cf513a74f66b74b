// The environment of a machine where nothing is installed or configured, as `npm start` meets it on a new user's
// machine: this test process's environment without any of the service's settings (a test run may set some, e.g.
// DATABASE_URL), plus the few a test gives on purpose.
const serviceSettings = [
  'PORT',
  'DATA_DIR',
  'LOG_LEVEL',
  'NODE_ENV',
  'FISCAL_ENV',
  'DATABASE_URL',
  'REDIS_URL',
  'STORAGE',
  'MASTER_KEY',
  'OPS_TOKEN',
  'ECF_XSD_DIR',
  'DGII_BASE_URL',
  'DGII_FC_BASE_URL',
  'DGII_STATUS_BASE_URL',
  'DGII_SANDBOX',
  'SANDBOX_PORT',
  'SANDBOX_ADMIN_TOKEN',
  'SMTP_URL',
  'SMTP_FROM',
  'SMTP_TIMEOUT_MS',
];

export function unconfiguredEnv(given: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of serviceSettings) env[name] = undefined;
  return { ...env, ...given };
}
