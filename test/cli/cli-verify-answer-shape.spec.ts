/**
 * `passport verify --api` against a server whose 200 carries a verdict of the wrong shape in its other
 * fields (`warnings`, `failureReasons`, `profile`): an error of the run (exit 2, one line naming the
 * route), as for a 200 without `verified`, never "unexpected error" with exit 1, which a script reads as
 * "not verified". A real HTTP server in this process answers; the tool runs in-process.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliCaptured as cli } from '../support/run-cli.js';

const SENDER = 'bhahbkbramax';

/** Verdicts a hostile or broken server might send: each well-formed but for one field. */
const MALFORMED: Record<string, object> = {
  'warnings-a-number': { verified: true, peerTokenId: SENDER, failureReasons: [], warnings: 5 },
  'warnings-an-object': { verified: true, peerTokenId: SENDER, failureReasons: [], warnings: {} },
  'a-null-warning': { verified: true, peerTokenId: SENDER, failureReasons: [], warnings: [null] },
  'a-warning-without-code': { verified: true, peerTokenId: SENDER, failureReasons: [], warnings: [{}] },
  'failure-reasons-not-strings': { verified: false, peerTokenId: SENDER, failureReasons: [null, {}] },
  'display-name-not-text': {
    verified: true,
    peerTokenId: SENDER,
    failureReasons: [],
    profile: { displayName: { toString: 1 }, creature: null },
  },
  'creature-not-text': {
    verified: true,
    peerTokenId: SENDER,
    failureReasons: [],
    profile: { displayName: 'Ada', creature: { toString: 1 } },
  },
  'profile-not-an-object': { verified: true, peerTokenId: SENDER, failureReasons: [], profile: 5 },
};

describe('passport verify with a malformed 200 verdict', () => {
  let dir: string;
  let base: string;
  const server = createServer((req, res) => {
    const name = (req.url ?? '').replace(/^\/([a-z-]*)\/api\/identity\/verify$/, '$1');
    const body =
      name === 'good'
        ? { verified: true, peerTokenId: SENDER, failureReasons: [] }
        : name === 'profile-without-name'
          ? { verified: true, peerTokenId: SENDER, failureReasons: [], profile: { creature: 'robot' } }
          : name === 'profile-empty-name'
            ? {
                verified: true,
                peerTokenId: SENDER,
                failureReasons: [],
                profile: { displayName: ' \u0007 ', creature: 'robot' },
              }
            : name === 'profile-invisible-name'
              ? {
                  verified: true,
                  peerTokenId: SENDER,
                  failureReasons: [],
                  profile: { displayName: '\u200b\u200e\u2060', creature: 'robot' },
                }
              : name === 'profile-blank-creature'
                ? {
                    verified: true,
                    peerTokenId: SENDER,
                    failureReasons: [],
                    profile: { displayName: 'Ada', creature: ' \u0007\u200b ' },
                  }
                : MALFORMED[name];
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? null));
  });
  let line: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'passport-cli-verify-shape-'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const keyFile = join(dir, 'k.json');
    await cli(['keygen', '--out', keyFile]);
    line = (await cli(['hola', '--key', keyFile, '--passport', SENDER, '--host', 'h.example'])).out.trim();
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  it('a well-formed verdict still verifies (exit 0)', async () => {
    const run = await cli(['verify', '--api', `${base}/good`, '--', line]);
    expect([run.code, run.out, run.err]).toEqual([0, `verified ${SENDER} -> MUNDO\n`, '']);
  });

  // Found by a hostile-server probe: `warnings: 5` ended the run "unexpected error: (result.warnings ??
  // []) is not iterable" with exit 1, and a display name without a string form "Cannot convert object to
  // primitive value".
  it.each(Object.keys(MALFORMED))('%s: exit 2, one line, no "unexpected error"', async (name) => {
    for (const flags of [[], ['--json'], ['--profile', '--expected-recipient', 'MUNDO']]) {
      const run = await cli(['verify', '--api', `${base}/${name}`, ...flags, '--', line]);
      expect([name, flags, run.code, run.out, run.err]).toEqual([
        name,
        flags,
        2,
        '',
        'passport verify: /api/identity/verify answered 200 without a verify result\n',
      ]);
    }
  });

  // A review of 1.14.1: a profile with no displayName (the field left out, not null) passed the shape check
  // and printed the name "undefined".
  it('a profile without displayName prints no name, not "undefined"', async () => {
    const run = await cli(['verify', '--api', `${base}/profile-without-name`, '--profile', '--', line]);
    expect([run.code, run.out, run.err]).toEqual([
      0,
      `verified ${SENDER} -> MUNDO\n  profile: (no name) (robot), self-declared\n`,
      '',
    ]);
  });

  // A review of today's fix: a name of only blanks or control characters (another API) printed as nothing,
  // "profile: , self-declared".
  it('a profile whose displayName is blank prints no name', async () => {
    const run = await cli(['verify', '--api', `${base}/profile-empty-name`, '--profile', '--', line]);
    expect([run.code, run.out]).toEqual([
      0,
      `verified ${SENDER} -> MUNDO\n  profile: (no name) (robot), self-declared\n`,
    ]);
  });

  // A review of 448714cd: a name of only format characters (zero-width space, bidi mark, word joiner:
  // nothing to read) printed as '???', and a creature of only blanks and controls as ' ( ?? )'.
  it('a profile whose displayName is only invisible format characters prints no name', async () => {
    const run = await cli(['verify', '--api', `${base}/profile-invisible-name`, '--profile', '--', line]);
    expect([run.code, run.out]).toEqual([
      0,
      `verified ${SENDER} -> MUNDO\n  profile: (no name) (robot), self-declared\n`,
    ]);
  });

  it('a profile whose creature is blank prints no creature, as one left out', async () => {
    const run = await cli(['verify', '--api', `${base}/profile-blank-creature`, '--profile', '--', line]);
    expect([run.code, run.out]).toEqual([0, `verified ${SENDER} -> MUNDO\n  profile: Ada, self-declared\n`]);
  });
});
