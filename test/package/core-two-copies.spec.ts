/**
 * Two copies of `@passport/core` in one process (two installs, a bundler's duplicate): an error thrown by
 * one is a PassportError to the other. The built package is copied whole and both copies are imported
 * in a child process.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

describe('two copies of @passport/core', () => {
  // Found by a probe: `instanceof` was false for an error of a second install of the package, so a
  // typed error was read as an unexpected one.
  it('recognises an error thrown by another copy of the package (the built package, loaded twice)', () => {
    const dist = fileURLToPath(new URL('../../libs/passport-core/dist', import.meta.url));
    const copy = mkdtempSync(join(tmpdir(), 'passport-core-copy-'));
    let run: { stdout: string; stderr: string };
    try {
      cpSync(dist, join(copy, 'dist'), { recursive: true });
      writeFileSync(join(copy, 'package.json'), '{"type":"module"}');
      const script = `
        const a = await import(${JSON.stringify(join(dist, 'errors/index.js'))});
        const b = await import(${JSON.stringify(join(copy, 'dist/errors/index.js'))});
        const foreign = new b.PassportError('INVALID_DID');
        console.log(JSON.stringify([a.PassportError === b.PassportError, foreign instanceof a.PassportError, a.isPassportError(foreign)]));
      `;
      run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual([false, false, true]);
  });
});
