// Signing in: an API key, checked by asking the service who it belongs to (GET /api/v1/empresa). The key lives in
// this tab's sessionStorage only (gone with the tab; never localStorage, a cookie or a URL) and in memory; signing
// out forgets it. What the key's scopes allow decides what the pages offer; the API still decides what is done.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { createEcfClient, ok, type EcfClient, type components } from '../../sdk/src/index.js';

export type Company = components['schemas']['CompanyView'];

export interface Session {
  client: EcfClient;
  company: Company;
  /** Whether the key's effective scopes hold `scope`. */
  can: (scope: string) => boolean;
}

const keyName = 'ecf-console.api-key';

export function storedKey(): string | undefined {
  return window.sessionStorage.getItem(keyName) ?? undefined;
}

/** The session of `apiKey`, kept for the tab once the service knows the key; throws the service's EcfProblem. */
export async function openSession(apiKey: string): Promise<Session> {
  const client = createEcfClient({ baseUrl: window.location.origin, apiKey });
  const { data: company } = await ok(client.GET('/api/v1/empresa'));
  window.sessionStorage.setItem(keyName, apiKey);
  const scopes = new Set(company.effectiveScopes);
  return { client, company, can: (scope) => scopes.has(scope) };
}

export function forgetKey(): void {
  window.sessionStorage.removeItem(keyName);
}

export const SessionContext = createContext<Session | undefined>(undefined);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (session === undefined) throw new Error('useSession outside a signed-in page');
  return session;
}
