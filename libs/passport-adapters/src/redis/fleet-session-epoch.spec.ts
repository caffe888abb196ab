/**
 * The fleet's session epoch going back (a review: a restart from a snapshot taken before a logout, with
 * no line recorded since, was noticed by nothing, and the logout was undone on every instance).
 */
import { FleetSessionEpoch } from './fleet-session-epoch.js';

describe('FleetSessionEpoch.onWentBack', () => {
  it('fires when one dataset reads lower than before, and follows afresh from there', () => {
    const epoch = new FleetSessionEpoch();
    let back = 0;
    epoch.onWentBack(() => back++);
    for (const seen of ['17.5:3', '17.5:3', '17.5:9', '17.5:10']) epoch.observe(seen, 0);
    expect(back).toBe(0);
    epoch.observe('17.5:9', 0);
    expect(back).toBe(1);
    epoch.observe('17.5:9', 0);
    epoch.observe('17.5:11', 0);
    expect(back).toBe(1);
    epoch.observe('17.5:10', 0);
    expect(back).toBe(2);
  });

  it('another dataset (a flush: the history watch finds it) and a failed take in between are no signal', () => {
    const epoch = new FleetSessionEpoch();
    let back = 0;
    epoch.onWentBack(() => back++);
    epoch.observe('17.5:10', 0);
    epoch.observe('18.2:0', 0);
    epoch.forget();
    epoch.observe('18.2:1', 0);
    expect(back).toBe(0);
    // Its own counter, from there.
    epoch.observe('18.2:0', 0);
    expect(back).toBe(1);
  });
});
