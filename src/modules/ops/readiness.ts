export type Probe = (timeoutMs: number) => Promise<void>;

export interface CheckState {
  status: 'up' | 'down';
  error?: string;
}

const probeTimeoutMs = 1_500;

/** Probes every dependency at once; one slow or failing dependency cannot hide the state of the others. */
export async function checkReadiness<K extends string>(probes: Record<K, Probe>) {
  const names = Object.keys(probes) as K[];
  const settled = await Promise.allSettled(names.map((name) => probes[name](probeTimeoutMs)));
  const checks = {} as Record<K, CheckState>;
  names.forEach((name, i) => {
    const outcome = settled[i];
    checks[name] =
      outcome?.status === 'fulfilled'
        ? { status: 'up' }
        : { status: 'down', error: outcome?.reason instanceof Error ? outcome.reason.message : String(outcome?.reason) };
  });
  const ready = names.every((name) => checks[name].status === 'up');
  return { status: ready ? ('ready' as const) : ('not_ready' as const), checks };
}
