/** Time comes from here, never from `new Date()` in business code, so tests can set it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests move by hand. */
export function fixedClock(start: Date): Clock & { set(at: Date): void; advance(ms: number): void } {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    set(at) {
      current = at.getTime();
    },
    advance(ms) {
      current += ms;
    },
  };
}
