/** A clock tests move by hand instead of sleeping. */
export interface TestClock {
  (): Date;
  set(at: Date | string): void;
  advance(ms: number): void;
}

/** Creates a clock starting at `start` (default: the real now). */
export function createTestClock(start: Date | string = new Date()): TestClock {
  let now = new Date(start).getTime();
  const clock = (() => new Date(now)) as TestClock;
  clock.set = (at) => {
    now = new Date(at).getTime();
  };
  clock.advance = (ms) => {
    now += ms;
  };
  return clock;
}
