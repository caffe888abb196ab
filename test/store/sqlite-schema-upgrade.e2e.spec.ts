/**
 * The server on a DATA_DIR whose database has an older schema (a probe: the migration at start said
 * nothing, so an operator could not tell when the builds of the older schema would refuse the file).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SCHEMA_VERSION } from '@passport/adapters/sqlite';
import { startTestApp } from '../support/test-app.js';

interface LogLine {
  readonly msg?: string;
  readonly [field: string]: unknown;
}

describe('a start that migrates the SQLite store', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'passport-schema-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const start = async () => {
    const lines: LogLine[] = [];
    const app = await startTestApp(
      { STORE: 'sqlite', DATA_DIR: dataDir, LOG_LEVEL: 'info' },
      { logDestination: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) } },
    );
    await app.close();
    return lines.filter((line) => /migrated .* from schema/.test(line.msg ?? ''));
  };

  it('says so once, naming both schemas and the rollback; a new file and an up-to-date one say nothing', async () => {
    expect(await start()).toEqual([]);
    const raw = new Database(join(dataDir, 'passport.db'));
    raw.pragma(`user_version = ${SCHEMA_VERSION - 1}`);
    raw.close();
    const said = await start();
    expect(said).toHaveLength(1);
    expect(said[0].msg).toBe(
      `migrated ${join(dataDir, 'passport.db')} from schema ${SCHEMA_VERSION - 1} to ${SCHEMA_VERSION}: builds of schema ${SCHEMA_VERSION - 1} refuse it from now on (docs/storage.md "Upgrading and rolling back")`,
    );
    expect(await start()).toEqual([]);
  });
});
