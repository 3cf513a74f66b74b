import type { Logger } from '../../platform/observability/logger.js';

export type Probe = (timeoutMs: number) => Promise<void>;

export interface CheckState {
  status: 'up' | 'down';
  error?: string;
}

const probeTimeoutMs = 1_500;

/**
 * Probes every dependency at once; one slow or failing dependency cannot hide the state of the others.
 * The route is public, so a failure is reported by kind only; its details (paths, hosts) go to the log.
 */
export async function checkReadiness<K extends string>(probes: Record<K, Probe>, log: Logger) {
  const names = Object.keys(probes) as K[];
  const settled = await Promise.allSettled(names.map((name) => probes[name](probeTimeoutMs)));
  const checks = {} as Record<K, CheckState>;
  names.forEach((name, i) => {
    const outcome = settled[i];
    if (outcome?.status === 'fulfilled') {
      checks[name] = { status: 'up' };
      return;
    }
    const reason: unknown = outcome?.reason;
    const message = reason instanceof Error ? reason.message : String(reason);
    log.warn({ dependency: name, err: reason }, 'readiness probe failed');
    checks[name] = {
      status: 'down',
      error: /did not answer|timed out/i.test(message) ? `no answer within ${probeTimeoutMs} ms` : 'unavailable',
    };
  });
  const ready = names.every((name) => checks[name].status === 'up');
  return { status: ready ? ('ready' as const) : ('not_ready' as const), checks };
}
