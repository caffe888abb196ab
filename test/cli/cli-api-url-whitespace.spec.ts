/**
 * An --api / PASSPORT_API_URL with whitespace around it (an .env file's trailing space, a pasted URL).
 * Found by a CLI operator probe: the URL was checked trimmed (the URL parser strips it) but used as
 * typed, so "http://127.0.0.1:3000 " failed inside the request with "unexpected error: Invalid URL" and
 * exit 1, which for verify is the code of a line that did not verify. It is a usage error (exit 2) or
 * the trimmed URL. Fails on the code it was written against.
 */
import { runCliCaptured as cli } from '../support/run-cli.js';

const LINE =
  'HOLA/MUNDO/CHETENCHANAQ/2026-11-28T08:44:54.979Z/B0045FDCF7BF91444097BB0B269A3D46/LOCALHOST:41610/4DOV4KTHMZVTPTL3MG4LTWZ5TIWVL7VGFCX7F4BZDRFJELED6QCM7R6ZI6HMIFJOA2TYDOA2ZPIY4RAY76S5767AR7CW47UWYB2GQAQ/M';

describe('passport --api with surrounding whitespace', () => {
  it.each([
    ['--api', ['verify', '--api', 'http://127.0.0.1:9 ', '--', LINE], {}],
    ['PASSPORT_API_URL', ['verify', '--', LINE], { PASSPORT_API_URL: 'http://127.0.0.1:9 ' }],
  ])('%s "http://127.0.0.1:9 " is no unexpected error (exit 1)', async (_name, args, env) => {
    const run = await cli(args as string[], env as Record<string, string>);
    expect(run.err).not.toContain('unexpected error');
    expect(run.code).toBe(2);
  });
});
