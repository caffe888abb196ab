/**
 * Steps the wall clock (Date.now) of this process, as an NTP step or a resumed VM does, while monotonic
 * time (performance.now, timers) runs on. `installWallClockStep` in a spec installs a Date.now that
 * follows the step before each test, so objects made in the test, whether they keep a reference to
 * Date.now or read it at each call, see it, and puts the real one back after.
 */
const realDateNow = Date.now;
let stepMs = 0;

export function installWallClockStep(): void {
  beforeEach(() => {
    stepMs = 0;
    Date.now = () => realDateNow.call(Date) + stepMs;
  });
  afterEach(() => {
    Date.now = realDateNow;
  });
}

/** Sets the wall clock `ms` from the true time (0: back to it). */
export function stepWallClock(ms: number): void {
  stepMs = ms;
}
