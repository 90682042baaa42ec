// The merchant's notion of time in its tests. Production code sleeps and times out on the wall
// clock; the test suite hands it this clock instead, which moves the sandbox's manual clock
// (docs/testing.md: "a test moves time with the clock instead of sleeping").

/**
 * A test clock over a sandbox started with `clock: 'manual'`.
 * - `sleep(ms)`: advance the sandbox by ms, let the webhooks it started arrive, fire due timers.
 * - `timer(ms)`: a promise that resolves once the clock has been moved ms past now (a time-out
 *   on the merchant's clock); `cancel()` drops it.
 * - `now()`: milliseconds this clock has moved since it was made.
 */
export function testClock(sb) {
  let now = 0;
  const timers = new Set();
  const fire = () => {
    for (const t of timers) {
      if (t.at <= now) {
        timers.delete(t);
        t.resolve();
      }
    }
  };
  return {
    now: () => now,
    async sleep(ms) {
      if (ms > 0) await sb.advance(ms);
      now += ms;
      await sb.settleWebhooks();
      fire();
    },
    timer(ms) {
      const t = { at: now + ms };
      const promise = new Promise((resolve) => {
        t.resolve = resolve;
      });
      timers.add(t);
      return { promise, cancel: () => timers.delete(t) };
    },
  };
}

/** Real time: what production code uses (and the one client that waits Retry-After for real). */
export const wallClock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  timer(ms) {
    let handle;
    const promise = new Promise((resolve) => {
      handle = setTimeout(resolve, ms);
    });
    return { promise, cancel: () => clearTimeout(handle) };
  },
};
