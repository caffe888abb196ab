/**
 * The local JSON ledger (docs/protocol.md §8): `{contractId, passports: [{token_id, owner_id, metadata,
 * revoked?}], accounts: {<named account>: ["ed25519:<base58>"]}}` — the same record shape as the NEAR
 * contract. This file parses and validates it (errors name the line and the field), and writes it
 * atomically (temp file in the same directory, fsync, rename) so that a reader never sees half a file.
 * Shared by the API's ledger reader and the `passport` command-line tool.
 */
import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { lstat, open, readdir, readlink, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { decodeBase58, type PassportMetadata, type PassportRecord } from '@passport/core';
import { lineOfJsonPath, lineOfOffset, offsetOfJsonError } from './json-location.js';
import { LedgerLockedError, withLedgerLock } from './ledger-lock.js';

export interface LedgerPassportEntry {
  token_id: string;
  owner_id: string;
  metadata: Record<string, string>;
  revoked?: boolean;
}

export interface LedgerDocument {
  contractId: string;
  passports: LedgerPassportEntry[];
  accounts: Record<string, string[]>;
}

export { LedgerLockedError };

/** A ledger that cannot be used: `message` is one line naming the file, the line and the field. */
export class LedgerFormatError extends Error {
  override readonly name = 'LedgerFormatError';
  constructor(
    readonly file: string,
    readonly line: number,
    readonly field: string,
    readonly problem: string,
  ) {
    // Line 0: no line is known (rather than a wrong one).
    super(`${file}${line > 0 ? `:${line}` : ''}: ${field ? `${field} ` : ''}${problem}`);
  }
}

type Path = (string | number)[];

const ED25519_KEY_PATTERN = /^ed25519:[1-9A-HJ-NP-Za-km-z]+$/;
/** Token ids are 12 lowercase letters, or a family-root string `bc=…;sc=…;id=…` (docs/protocol.md §3). */
const LEDGER_TOKEN_ID_PATTERN = /^(?:[a-z]{12}|bc=[^;\s]+;sc=[^;\s]+;id=[^;\s]+)$/;
const MAX_FIELD_CHARS = 8192;

/**
 * Parses and validates ledger text; throws LedgerFormatError (with line and field) when it is malformed.
 * A leading UTF-8 byte order mark (some Windows editors write one) is ignored: `JSON.parse` refuses it.
 */
export function parseLedger(text: string, file: string): LedgerDocument {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const line = lineOfJsonError(text, error);
    throw new LedgerFormatError(
      file,
      line,
      '',
      line > 0 ? 'is not valid JSON' : 'is not valid JSON (no line known)',
    );
  }
  const fail = (path: Path, problem: string): never => {
    throw new LedgerFormatError(file, lineOfJsonPath(text, path), formatPath(path), problem);
  };
  if (!isPlainObject(json)) fail([], 'must be a JSON object {contractId, passports, accounts}');
  const root = json as Record<string, unknown>;
  if (typeof root.contractId !== 'string' || root.contractId.length === 0 || root.contractId.length > 256) {
    fail(['contractId'], 'must be a non-empty string');
  }
  if (!Array.isArray(root.passports)) fail(['passports'], 'must be an array');
  const seen = new Set<string>();
  const passports = (root.passports as unknown[]).map((entry, i): LedgerPassportEntry => {
    if (!isPlainObject(entry))
      fail(['passports', i], 'must be an object {token_id, owner_id, metadata, revoked?}');
    const e = entry as Record<string, unknown>;
    if (typeof e.token_id !== 'string' || !LEDGER_TOKEN_ID_PATTERN.test(e.token_id)) {
      fail(
        ['passports', i, 'token_id'],
        'must be 12 lowercase letters or bc=<chain>;sc=<contract>;id=<root>',
      );
    }
    const tokenId = e.token_id as string;
    if (seen.has(tokenId)) fail(['passports', i, 'token_id'], `duplicates an earlier passport (${tokenId})`);
    seen.add(tokenId);
    if (typeof e.owner_id !== 'string' || e.owner_id.length < 2 || e.owner_id.length > 64) {
      fail(['passports', i, 'owner_id'], 'must be an account id (2..64 characters)');
    }
    if (!isPlainObject(e.metadata)) fail(['passports', i, 'metadata'], 'must be an object of string values');
    const metadata: Record<string, string> = {};
    for (const [key, value] of Object.entries(e.metadata as Record<string, unknown>)) {
      if (typeof value !== 'string' || value.length > MAX_FIELD_CHARS) {
        fail(['passports', i, 'metadata', key], `must be a string of at most ${MAX_FIELD_CHARS} characters`);
      }
      metadata[key] = value as string;
    }
    if (e.revoked !== undefined && typeof e.revoked !== 'boolean')
      fail(['passports', i, 'revoked'], 'must be true or false');
    const out: LedgerPassportEntry = { token_id: tokenId, owner_id: e.owner_id as string, metadata };
    if (e.revoked !== undefined) out.revoked = e.revoked as boolean;
    return out;
  });
  const accounts: Record<string, string[]> = {};
  if (root.accounts !== undefined) {
    if (!isPlainObject(root.accounts))
      fail(['accounts'], 'must be an object {<account>: ["ed25519:<base58>"]}');
    for (const [account, keys] of Object.entries(root.accounts as Record<string, unknown>)) {
      if (!Array.isArray(keys)) fail(['accounts', account], 'must be an array of "ed25519:<base58>" keys');
      (keys as unknown[]).forEach((key, k) => {
        if (
          typeof key !== 'string' ||
          !ED25519_KEY_PATTERN.test(key) ||
          decodeBase58(key.slice(8))?.length !== 32
        ) {
          fail(['accounts', account, k], 'must be "ed25519:<base58 of 32 bytes>"');
        }
      });
      accounts[account] = keys as string[];
    }
  }
  return { contractId: root.contractId as string, passports, accounts };
}

/** The passport records of a ledger, in file order. */
export function ledgerRecords(doc: LedgerDocument): PassportRecord[] {
  return doc.passports.map((p) => ({
    tokenId: p.token_id,
    ownerId: p.owner_id,
    contractId: doc.contractId,
    metadata: { ...p.metadata } as PassportMetadata,
    revoked: p.revoked === true,
  }));
}

/** Serialises a ledger the way the tools write it: two-space indentation, one trailing newline. */
export function serializeLedger(doc: LedgerDocument): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** Reads and validates a ledger file. */
export async function readLedgerFile(file: string): Promise<LedgerDocument> {
  return parseLedger(await readLedgerText(file), file);
}

/** The most a ledger file may hold: it is read and parsed whole (a 200 MB one took 545 MB, measured). */
export const LEDGER_MAX_BYTES = 64 * 1024 * 1024;

/**
 * The ledger's text, from a regular file of at most `LEDGER_MAX_BYTES`; otherwise an error whose `code`
 * says why (`not_a_regular_file`, `over_64_MiB`, or the system's). Opened without blocking: a FIFO put at
 * the ledger's path would make every read wait forever for a writer, holding a thread of libuv's pool, so
 * every chain read and the process's exit would hang; a device (`/dev/zero`) never ends.
 */
export async function readLedgerText(file: string): Promise<string> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile())
      throw Object.assign(new Error(`${file} is not a regular file`), { code: 'not_a_regular_file' });
    if (info.size > LEDGER_MAX_BYTES)
      throw Object.assign(new Error(`${file} is over 64 MiB`), { code: 'over_64_MiB' });
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * Writes `text` to `file` atomically: a temp file in the same directory (same file system, so the
 * rename is atomic), fsync'd before the rename, and the directory fsync'd after it. `mode` is a new
 * file's (less the umask); `{ exact }` is set as it is, whatever the umask (a replacement keeping the old
 * file's mode). With `stillCurrent`, the rename happens only when it answers true (else false, nothing
 * written). A failed write (a full disk) removes the temp file too; one left by a
 * writer killed mid-write is removed by a later ledger writer (`updateLedgerFile`).
 */
export async function writeFileAtomic(
  file: string,
  text: string,
  mode: number | { exact: number } = 0o644,
  stillCurrent?: () => Promise<boolean>,
): Promise<boolean> {
  const dir = dirname(file);
  const temp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', typeof mode === 'number' ? mode : mode.exact);
  try {
    try {
      if (typeof mode !== 'number') await handle.chmod(mode.exact);
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (stillCurrent && !(await stillCurrent())) {
      await rm(temp, { force: true });
      return false;
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await syncDirectory(dir);
  return true;
}

/** A ledger path that is a symbolic link to nothing: writing there would replace the link. */
/**
 * A ledger path writers must not write through: a symbolic link to nothing or in a loop, or a file with
 * other hard links (the atomic write replaces the name, so the other names would keep the old ledger: a
 * mint through a hard link would land in a copy the API never reads).
 */
export class LedgerPathError extends Error {
  override readonly name: string = 'LedgerPathError';
  constructor(
    readonly file: string,
    readonly code: 'dangling_symlink' | 'symlink_loop' | 'hard_linked',
    message: string,
  ) {
    super(message);
  }
}

export class DanglingLedgerLinkError extends LedgerPathError {
  override readonly name = 'DanglingLedgerLinkError';
  constructor(
    file: string,
    readonly target: string,
  ) {
    super(file, 'dangling_symlink', `${file} is a symbolic link to ${target}, which does not exist`);
  }
}

/**
 * The file a ledger path names, for writers: a symbolic link's target, so the write replaces the
 * ledger the API reads and the lock is the one every writer of that ledger takes (else `mint
 * --ledger link.json` would replace the link with a private copy and lock link.json.lock). Any other path
 * is itself; a link to a missing file throws DanglingLedgerLinkError.
 */
export async function resolveLedgerPath(file: string): Promise<string> {
  const entry = await lstat(file).catch(() => null);
  if (!entry?.isSymbolicLink()) return file;
  try {
    return await realpath(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP')
      throw new LedgerPathError(file, 'symlink_loop', `${file} is a loop of symbolic links`);
    if (code !== 'ENOENT') throw error;
    throw new DanglingLedgerLinkError(file, await readlink(file));
  }
}

/** Refuses a ledger file that has other hard links (LedgerPathError), for writers. */
export async function assertNotHardLinked(file: string): Promise<void> {
  const entry = await stat(file).catch(() => null);
  if (entry?.isFile() && entry.nlink > 1)
    throw new LedgerPathError(
      file,
      'hard_linked',
      `${file} has ${entry.nlink} hard links: a write replaces this name only, the others would keep the old ledger (use one name, or a symbolic link)`,
    );
}

/**
 * Read-modify-write of the ledger under the writers' lock (`<ledger>.lock`, ledger-lock.ts), so that two
 * tools appending at once do not lose a passport. The new text replaces the ledger only if the ledger
 * is still the file that was read (same inode, size and mtime): otherwise the change is made again on
 * what is there now (at most 5 times, then LedgerLockedError), so no writer ever replaces another's
 * passport, whatever happened to the lock. A symbolic link is followed (`resolveLedgerPath`). The new
 * file keeps the old one's permission bits; it is written from the parsed model (`parseLedger`), so
 * fields that model does not hold are not kept (docs/storage.md).
 */
export async function updateLedgerFile(
  file: string,
  change: (doc: LedgerDocument) => LedgerDocument,
  opts: { lockTimeoutMs?: number; staleMs?: number } = {},
): Promise<LedgerDocument> {
  file = await resolveLedgerPath(file);
  const lock = `${file}.lock`;
  return withLedgerLock(
    lock,
    async () => {
      await removeAbandonedTempFiles(file, opts.staleMs ?? 30_000);
      await assertNotHardLinked(file);
      for (let attempt = 0; attempt < 5; attempt++) {
        const before = await stat(file);
        const next = change(await readLedgerFile(file));
        const text = serializeLedger(next);
        parseLedger(text, file); // never write a ledger the reader would refuse
        // The ledger's own mode: a mint must not turn an operator's 0600 ledger into 0644.
        const mode = { exact: before.mode & 0o777 };
        const written = await writeFileAtomic(file, text, mode, async () => {
          const now = await stat(file).catch(() => null);
          return now !== null && sameFile(now, before);
        });
        if (written) return next;
      }
      throw new LedgerLockedError(lock);
    },
    { timeoutMs: opts.lockTimeoutMs, staleMs: opts.staleMs },
  );
}

/**
 * Temp files of writers killed mid-write (`.<ledger>.<pid>.<hex>.tmp`, each as large as the ledger,
 * else left forever), removed by the lock's holder once older than `staleMs` (a write
 * takes milliseconds, and only the holder writes).
 */
async function removeAbandonedTempFiles(file: string, staleMs: number): Promise<void> {
  const dir = dirname(file);
  const prefix = `.${basename(file)}.`;
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix) || !/^\d+\.[0-9a-f]+\.tmp$/.test(name.slice(prefix.length))) continue;
    const path = join(dir, name);
    const info = await lstat(path).catch(() => null);
    if (info?.isFile() && Date.now() - info.mtimeMs > staleMs) await rm(path, { force: true });
  }
}

function sameFile(a: Stats, b: Stats): boolean {
  return a.ino === b.ino && a.dev === b.dev && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

async function syncDirectory(dir: string): Promise<void> {
  // Directory fsync makes the rename durable; some platforms refuse it, which is harmless here.
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    /* not supported on this platform */
  }
}

/**
 * The line of `JSON.parse`'s error: from its message when it has a line (Node 22) or a position, else
 * found by scanning the text (Node 20 gives no position for an unexpected token, and the file's last
 * line was named); 0 when neither tells.
 */
function lineOfJsonError(text: string, error: unknown): number {
  const message = error instanceof Error ? error.message : '';
  const lineMatch = /line (\d+) column/.exec(message);
  if (lineMatch) return Number(lineMatch[1]);
  const positionMatch = /position (\d+)/.exec(message);
  if (positionMatch) return lineOfOffset(text, Number(positionMatch[1]));
  const offset = offsetOfJsonError(text);
  return offset === undefined ? 0 : lineOfOffset(text, offset);
}

function formatPath(path: Path): string {
  return path.reduce<string>(
    (acc, seg) => (typeof seg === 'number' ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg),
    '',
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
