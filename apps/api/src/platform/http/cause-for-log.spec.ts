import { causeForLog, CAUSE_MESSAGE_MAX, CAUSE_STACK_MAX } from './cause-for-log.js';

describe('causeForLog', () => {
  it("leaves out an error's other fields (ioredis's command: a script and a client's text)", () => {
    const error = Object.assign(new Error('OOM command not allowed when used memory > maxmemory'), {
      command: { name: 'eval', args: ['-- a Lua script '.repeat(200), 'logout: a client reason'] },
      code: 'ERR',
    });
    const logged = causeForLog(error);
    expect(logged).toEqual({
      type: 'Error',
      message: 'OOM command not allowed when used memory > maxmemory',
      stack: expect.stringMatching(/^\s+at /),
      code: 'ERR',
    });
    expect(JSON.stringify(logged)).not.toContain('a client reason');
  });

  it('bounds the message and the stack, and makes the message printable', () => {
    const error = new Error(`x\u009b31m${'y'.repeat(10_000)}`);
    error.stack = `Error: x\n${'    at frame (file.js:1:1)\n'.repeat(5_000)}`;
    const logged = causeForLog(error)!;
    expect(logged.message.length).toBe(CAUSE_MESSAGE_MAX);
    expect(logged.message.startsWith('x?31m')).toBe(true);
    expect(logged.stack!.length).toBe(CAUSE_STACK_MAX);
  });

  it('names a cause that is no Error by its type', () => {
    expect(causeForLog('gone')).toEqual({ type: 'string', message: 'gone' });
    expect(causeForLog(undefined)).toBeUndefined();
    expect(causeForLog(null)).toBeUndefined();
  });
});
