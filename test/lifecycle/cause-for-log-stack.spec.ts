/**
 * Review of 65d3075 (causeForLog: "bounded and printable"): the message is made printable and cut to
 * 300, but the stack is only cut to 4000, and a V8 stack begins with `${name}: ${message}` as thrown. So
 * the message's C1 controls and bidi overrides reach the log line raw through `stack`, and a long
 * message is logged up to 4000 characters there. The unit test replaced the stack by 's' × 50 000, so it
 * could not see this.
 */
import { causeForLog } from '../../apps/api/src/platform/http/cause-for-log.js';

const UNPRINTABLE = /[\p{Cc}\p{Cf}\u2028\u2029]/u;

describe('causeForLog: the stack as thrown', () => {
  it('carries no unprintable text of the message (a stack line break aside)', () => {
    const logged = causeForLog(new Error(`ERR \u009b31m\u202ex`))!;
    expect(UNPRINTABLE.test(logged.message)).toBe(false);
    expect(UNPRINTABLE.test(logged.stack!.replace(/\n/g, ''))).toBe(false);
  });

  it('does not log a long message whole through the stack', () => {
    const logged = causeForLog(new Error('m'.repeat(10_000)))!;
    expect(logged.stack!).not.toContain('m'.repeat(1000));
  });
});
