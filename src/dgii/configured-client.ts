// The DGII client as the configuration sets it up: the environment, DGII_* timeouts and breaker, the status
// service's key, and as many connections per host as a process's sender and poller keep in flight.
import type { Config } from '../config.js';
import { createDgiiClient, type DgiiClient, type DgiiClientOptions } from './dgii-client.js';

export function configuredDgiiClient(
  config: Pick<Config, 'fiscalEnv' | 'sending' | 'dgiiClient'>,
  deps: Pick<DgiiClientOptions, 'urls' | 'clock' | 'cache' | 'log' | 'tokenSealing' | 'credentials'>,
): DgiiClient {
  const { dgiiClient } = config;
  return createDgiiClient({
    ...deps,
    environment: config.fiscalEnv,
    timeouts: { connectMs: dgiiClient.connectTimeoutMs, responseMs: dgiiClient.responseTimeoutMs },
    // The sender's and the poller's requests of one process may go to one host: neither waits for the other's sockets.
    connectionsPerHost: 2 * config.sending.concurrency,
    breaker: { failureThreshold: dgiiClient.breakerFailureThreshold, openMs: dgiiClient.breakerOpenMs },
    statusApiKey: dgiiClient.statusApiKey,
  });
}
