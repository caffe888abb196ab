/**
 * Review of 25830e4 (a new key file written to a temporary name beside it, then linked to its name):
 * the temporary name is the key's own name plus 18 characters (`.<name>.<12 hex>.tmp`), so a name the
 * file system takes (up to 255 bytes) but that is within 18 of the limit fails ENAMETOOLONG, where the
 * same keygen wrote it before. The temporary name must not grow with the key's name.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliCaptured as cli } from '../support/run-cli.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'passport-keygen-new-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

it('keygen --out a 245-character name (the file system takes up to 255) writes it, and leaves nothing else', async () => {
  const name = join(dir, 'k'.repeat(245));
  const run = await cli(['keygen', '--out', name]);
  expect([run.code, run.err]).toEqual([0, '']);
  expect(await readdir(dir)).toEqual(['k'.repeat(245)]);
});
