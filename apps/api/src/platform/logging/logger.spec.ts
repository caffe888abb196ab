/**
 * The Nest logger on pino: Nest's start-up account of modules and routes is debug, everything else
 * Nest says at `log` is info, and a structured message's fields become fields of the line.
 */
import { Writable } from 'node:stream';
import { createLogger, PinoNestLogger } from './logger.js';

function capture(level: 'info' | 'debug'): { nest: PinoNestLogger; lines: () => Record<string, unknown>[] } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  const nest = new PinoNestLogger(createLogger({ logLevel: level }, sink));
  const lines = () =>
    text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { nest, lines };
}

describe('PinoNestLogger', () => {
  it("at info, Nest's module and route lines are left out and the rest is kept", async () => {
    const { nest, lines } = capture('info');
    nest.log('AppModule dependencies initialized', 'InstanceLoader');
    nest.log('HealthController {/health}:', 'RoutesResolver');
    nest.log('Mapped {/health, GET} route', 'RouterExplorer');
    nest.log('Next steps:', 'Chain');
    nest.log('Nest application successfully started', 'NestApplication');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines().map((l) => [l.level, l.context, l.msg])).toEqual([
      [30, 'Chain', 'Next steps:'],
      [30, 'NestApplication', 'Nest application successfully started'],
    ]);
  });

  it('at debug, they are there, as debug lines', async () => {
    const { nest, lines } = capture('debug');
    nest.log('Mapped {/health, GET} route', 'RouterExplorer');
    nest.log({ msg: 'revoked', audit: 'session.revoke', requestId: 'r1' }, 'Admin');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines().map((l) => [l.level, l.context, l.msg, l.audit])).toEqual([
      [20, 'RouterExplorer', 'Mapped {/health, GET} route', undefined],
      [30, 'Admin', 'revoked', 'session.revoke'],
    ]);
  });
});
