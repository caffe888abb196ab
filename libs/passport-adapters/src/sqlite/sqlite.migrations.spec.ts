import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { migrate, SCHEMA_VERSION } from './sqlite.migrations.js';

describe('migrate', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'passport-migrate-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reports what it applied', () => {
    const db = new Database(join(dir, 'passport.db'));
    expect(migrate(db)).toEqual({ from: 0, to: SCHEMA_VERSION });
    expect(migrate(db)).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
    db.close();
  });

  // Found by a probe: two processes starting together on an older file both reported (and logged) the
  // migration, though only the first applied it; the other had read the version before it.
  it('a process that read the old version while another migrated reports nothing applied', () => {
    const file = join(dir, 'passport.db');
    const first = new Database(file);
    const second = new Database(file);
    let reads = 0;
    // The second connection's first read of the version is answered, then the first migrates.
    const late = new Proxy(second, {
      get(target, name) {
        if (name !== 'pragma') return Reflect.get(target, name) as unknown;
        return (...args: Parameters<Database.Database['pragma']>) => {
          const value = target.pragma(...args);
          if (reads++ === 0) expect(migrate(first)).toEqual({ from: 0, to: SCHEMA_VERSION });
          return value;
        };
      },
    });
    expect(migrate(late)).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
    expect(second.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    first.close();
    second.close();
  });
});
