/**
 * The CLI as scripts run it. Found by a CLI operator probe: a bare `passport` printed its usage on
 * stdout (a script took it for a result); there was no `--version` to compare with a server's; a server
 * that accepted the connection and never answered was reported as "cannot reach … (TimeoutError)",
 * although the request may have been served, after a fixed 15 s.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { runCliCaptured as cli } from '../support/run-cli.js';

const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

describe('passport in scripts', () => {
  it('a bare passport is a usage error on stderr; --help is the output', async () => {
    const bare = await cli([]);
    expect([bare.code, bare.out]).toEqual([2, '']);
    expect(bare.err).toMatch(/^Usage: passport <command>/);
    const help = await cli(['--help']);
    expect([help.code, help.err]).toEqual([0, '']);
    expect(help.out).toMatch(/^Usage: passport <command>/);
  });

  it.each(['--version', '-V', 'version'])('%s prints the version the API reports', async (flag) => {
    expect(await cli([flag])).toMatchObject({ code: 0, out: `${version}\n`, err: '' });
  });

  describe('a server that accepts and never answers', () => {
    let server: Server;
    let api: string;
    beforeAll(async () => {
      server = createServer(() => undefined);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = server.address();
      api = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    });
    afterAll(async () => {
      server.close();
    });

    it('is "no answer within" the wait PASSPORT_API_TIMEOUT_MS sets, not "cannot reach"', async () => {
      const run = await cli(['did', '--api', api, '--', 'did:passport:bjbvcjzqbdsj'], {
        PASSPORT_API_TIMEOUT_MS: '300',
      });
      expect(run.code).toBe(2);
      expect(run.err).toBe(
        `passport did: ${api}/.well-known/did/resolve?…: no answer within 0.3 s (the request may have been served all the same; PASSPORT_API_TIMEOUT_MS sets the wait)\n`,
      );
    });

    it.each(['0', '1.5', 'soon', '600001'])(
      'PASSPORT_API_TIMEOUT_MS=%s is refused, naming it',
      async (value) => {
        const run = await cli(['did', '--api', api, '--', 'did:passport:bjbvcjzqbdsj'], {
          PASSPORT_API_TIMEOUT_MS: value,
        });
        expect(run.code).toBe(2);
        expect(run.err).toContain(
          'PASSPORT_API_TIMEOUT_MS must be a whole number of milliseconds from 1 to 600000',
        );
      },
    );
  });
});
