import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { migrate, SCHEMA_VERSION } from './sqlite.migrations.js';

/**
 * What `sqlite3 old.db .dump | sqlite3 new.db` makes of a file of this schema holding a replay record:
 * its objects created from their definitions in order, its rows, and no `user_version` (sqlite3 3.40's
 * dump does not carry it: checked by hand).
 */
function restoredDump(file: string): Database.Database {
  const old = new Database(':memory:');
  migrate(old);
  const restored = new Database(file);
  const definitions = old
    .prepare(
      "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid",
    )
    .pluck()
    .all() as string[];
  for (const sql of definitions) restored.exec(sql);
  restored
    .prepare('INSERT INTO replay_records (key, first_seen_ms, expires_at_ms) VALUES (?, ?, ?)')
    .run('abcdefghijkl|0', 1000, 2000);
  old.close();
  return restored;
}

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

  // Found by a probe: a file restored from `sqlite3 … .dump` has the tables and user_version 0, and the
  // start failed with "table replay_records already exists".
  it('refuses a restored dump (tables, no schema version), giving the version to set, and migrates it once set', () => {
    const file = join(dir, 'passport.db');
    const restored = restoredDump(file);
    expect(() => migrate(restored)).toThrow(
      `store database has tables but schema version 0: restored from \`sqlite3 … .dump\`? A dump does not carry PRAGMA user_version; its tables are schema ${SCHEMA_VERSION}'s: set it with \`sqlite3 ${file} "PRAGMA user_version = ${SCHEMA_VERSION}"\` and start again`,
    );
    expect(restored.pragma('user_version', { simple: true })).toBe(0); // nothing written
    restored.pragma(`user_version = ${SCHEMA_VERSION}`);
    expect(migrate(restored)).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
    expect(restored.prepare('SELECT key FROM replay_records').pluck().all()).toEqual(['abcdefghijkl|0']);
    restored.close();
  });

  it('refuses tables of no schema it knows at version 0, pointing at a .backup copy', () => {
    const restored = restoredDump(join(dir, 'passport.db'));
    restored.exec('DROP TRIGGER replay_records_count_insert'); // a dump cut short
    expect(() => migrate(restored)).toThrow(
      /: restored from `sqlite3 … \.dump`\? A dump does not carry PRAGMA user_version, and these tables are no schema of this build \(1 to \d+\): restore a copy made with `sqlite3 … "\.backup …"` instead$/,
    );
    restored.close();
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
