/**
 * ChainReader over the local JSON ledger (docs/protocol.md §8), the default chain of `npm start`.
 * The file is re-read when it changes on disk, so passports appended by any tool are visible without a
 * restart. File-system watchers are unreliable (missed, duplicated or coalesced events, editors that
 * replace the file), so a watch on the directory only schedules a debounced reload; every read also
 * checks the file's identity (inode, size, mtime, ctime) at most every `statIntervalMs`. A malformed file at
 * start fails the start with one line naming the line and field; a malformed edit later is logged and
 * the last good content stays in use. Chain time is the clock.
 */
import { realpathSync, watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { type ChainReader, type Clock, decodeBase58, type PassportRecord, systemClock } from '@passport/core';
import { type PageRequest } from '@passport/core/ports';
import {
  LedgerFormatError,
  ledgerRecords,
  parseLedger,
  readLedgerText,
  type LedgerDocument,
} from './ledger-file.js';

export interface LedgerLog {
  log(message: string): void;
  warn(message: string): void;
}

export interface LedgerChainReaderOptions {
  readonly clock?: Clock | undefined;
  readonly log?: LedgerLog | undefined;
  /** Delay between a watch event and the reload, so that a burst of events causes one read. */
  readonly debounceMs?: number | undefined;
  /** Minimum interval between two on-read checks of the file's identity. */
  readonly statIntervalMs?: number | undefined;
  /** Turn the directory watch off (the on-read check alone still notices changes). */
  readonly watch?: boolean | undefined;
}

interface FileIdentity {
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  /**
   * The inode's change time: a `chmod 000` or a `chown` changes nothing else, and the file, no longer
   * readable, was never read again, so health said ok until a restart failed on it (a probe).
   */
  readonly ctimeMs: number;
}

interface Snapshot {
  readonly doc: LedgerDocument;
  readonly records: readonly PassportRecord[];
  readonly byToken: ReadonlyMap<string, PassportRecord>;
  readonly byOwner: ReadonlyMap<string, readonly PassportRecord[]>;
  readonly accountKeys: ReadonlyMap<string, readonly Uint8Array[]>;
}

const silentLog: LedgerLog = { log: () => undefined, warn: () => undefined };

export type LedgerLoadOutcome =
  { readonly ok: true } | { readonly ok: false; readonly problem: 'unreadable' | 'unparsable' };

export class LedgerChainReader implements ChainReader {
  private snapshot: Snapshot;
  private identity: FileIdentity | null;
  /** Identity of the last file content that failed to parse, so one bad edit is logged once. */
  private rejectedIdentity: FileIdentity | null = null;
  private lastStatAt = 0;
  /** Identity of the file content whose read last failed (its warning is logged once). */
  private unreadableIdentity: FileIdentity | null = null;
  private watcher: FSWatcher | null = null;
  private debounceTimer: NodeJS.Timeout | null = null;
  private reloading: Promise<void> | null = null;
  private readonly clock: Clock;
  private readonly log: LedgerLog;
  private readonly debounceMs: number;
  private readonly statIntervalMs: number;
  private reloadCount = 0;
  private lastLoad: LedgerLoadOutcome = { ok: true };

  private constructor(
    readonly file: string,
    initial: { doc: LedgerDocument; identity: FileIdentity },
    opts: LedgerChainReaderOptions,
  ) {
    this.clock = opts.clock ?? systemClock;
    this.log = opts.log ?? silentLog;
    this.debounceMs = opts.debounceMs ?? 50;
    this.statIntervalMs = opts.statIntervalMs ?? 250;
    this.snapshot = buildSnapshot(initial.doc);
    this.identity = initial.identity;
    if (opts.watch !== false) this.startWatching();
  }

  /** Opens the ledger; throws LedgerFormatError (one line: file, line, field) when it is malformed or missing. */
  static async open(file: string, opts: LedgerChainReaderOptions = {}): Promise<LedgerChainReader> {
    let text: string;
    let identity: FileIdentity;
    try {
      identity = toIdentity(await stat(file));
      text = await readLedgerText(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new LedgerFormatError(file, 1, '', `cannot be read (${code})`);
    }
    return new LedgerChainReader(file, { doc: parseLedger(text, file), identity }, opts);
  }

  get contractId(): string {
    return this.snapshot.doc.contractId;
  }

  /**
   * How the last look at the file went: `ok` when its current content is the one in use, otherwise why
   * not (`unreadable`, `unparsable`) while the last good content keeps serving. Health reports it.
   */
  get lastLoadOutcome(): LedgerLoadOutcome {
    return this.lastLoad;
  }

  /** Number of successful reloads since start (for tests and logs). */
  get reloads(): number {
    return this.reloadCount;
  }

  async getPassport(tokenId: string): Promise<PassportRecord | null> {
    await this.refreshIfChanged();
    return (
      this.snapshot.byToken.get(tokenId) ??
      (await this.afterMiss(() => this.snapshot.byToken.get(tokenId) ?? null))
    );
  }

  async listPassportsByOwner(accountId: string, page: PageRequest): Promise<PassportRecord[]> {
    await this.refreshIfChanged();
    const owned =
      this.snapshot.byOwner.get(accountId) ??
      (await this.afterMiss(() => this.snapshot.byOwner.get(accountId)));
    return slice(owned ?? [], page);
  }

  async listPassports(page: PageRequest): Promise<PassportRecord[]> {
    await this.refreshIfChanged();
    return slice(this.snapshot.records, page);
  }

  async getAccountKeys(accountId: string): Promise<Uint8Array[]> {
    await this.refreshIfChanged();
    const keys =
      this.snapshot.accountKeys.get(accountId) ??
      (await this.afterMiss(() => this.snapshot.accountKeys.get(accountId)));
    return [...(keys ?? [])];
  }

  /**
   * A miss re-checks the file before answering "not there": a passport minted a moment ago by any
   * tool must be visible at once, not after the next stat interval. One stat per miss; the caching
   * reader in front remembers misses briefly, so unknown ids cannot turn this into a stat storm.
   */
  private async afterMiss<T>(lookup: () => T): Promise<T> {
    await this.refresh();
    return lookup();
  }

  async chainTimeMs(): Promise<number> {
    return this.clock.nowMs();
  }

  /** Re-reads the file now if it changed; resolves when the current content is in use. */
  async refresh(): Promise<void> {
    this.lastStatAt = 0;
    await this.refreshIfChanged();
  }

  close(): void {
    this.watcher?.close();
    this.watcher = null;
    if (this.debounceTimer) clearTimeout(this.debounceTimer);
    this.debounceTimer = null;
  }

  private startWatching(): void {
    // Writers follow a symbolic link and replace the file it names (updateLedgerFile): watch that file's
    // directory. A path not there yet is watched as named.
    let target = this.file;
    try {
      target = realpathSync(this.file);
    } catch {
      // the on-read check still works
    }
    const name = basename(target);
    try {
      // Watch the directory, not the file: atomic writers replace the file (new inode), which ends a file watch.
      this.watcher = watch(dirname(target), { persistent: false }, (_event, changed) => {
        if (changed === null || changed === name) this.scheduleReload();
      });
      this.watcher.on('error', () => {
        this.watcher?.close();
        this.watcher = null; // the on-read check still works
      });
    } catch {
      this.watcher = null;
    }
  }

  private scheduleReload(): void {
    if (this.debounceTimer) clearTimeout(this.debounceTimer);
    this.debounceTimer = setTimeout(() => {
      this.debounceTimer = null;
      this.lastStatAt = 0;
      void this.refreshIfChanged();
    }, this.debounceMs);
    this.debounceTimer.unref();
  }

  private async refreshIfChanged(): Promise<void> {
    if (this.reloading) return this.reloading;
    const now = Date.now();
    if (now - this.lastStatAt < this.statIntervalMs) return;
    this.lastStatAt = now;
    this.reloading = this.reloadIfChanged().finally(() => {
      this.reloading = null;
    });
    return this.reloading;
  }

  private async reloadIfChanged(): Promise<void> {
    let identity: FileIdentity;
    try {
      identity = toIdentity(await stat(this.file));
    } catch (error) {
      this.lastLoad = { ok: false, problem: 'unreadable' };
      this.warnOnce(
        null,
        `ledger ${this.file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); keeping the last good content`,
      );
      return;
    }
    if (sameIdentity(identity, this.identity)) {
      this.lastLoad = { ok: true };
      return;
    }
    if (sameIdentity(identity, this.rejectedIdentity)) return;
    let text: string;
    try {
      text = await readLedgerText(this.file);
    } catch (error) {
      // Not a rejection of this content: a read can fail for a while (EMFILE, EACCES) and the same
      // file must be read once it can be; only the warning is given once per file identity.
      this.lastLoad = { ok: false, problem: 'unreadable' };
      if (!sameIdentity(identity, this.unreadableIdentity)) {
        this.unreadableIdentity = identity;
        this.log.warn(
          `ledger ${this.file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); keeping the last good content`,
        );
      }
      return;
    }
    this.unreadableIdentity = null;
    try {
      const doc = parseLedger(text, this.file);
      this.snapshot = buildSnapshot(doc);
      this.identity = identity;
      this.rejectedIdentity = null;
      this.reloadCount++;
      this.lastLoad = { ok: true };
      this.log.log(`ledger reloaded: ${doc.passports.length} passports`);
    } catch (error) {
      this.lastLoad = { ok: false, problem: 'unparsable' };
      const message = error instanceof LedgerFormatError ? error.message : `ledger ${this.file} is malformed`;
      this.warnOnce(identity, `${message}; keeping the last good content`);
    }
  }

  private warnOnce(identity: FileIdentity | null, message: string): void {
    if (identity && sameIdentity(identity, this.rejectedIdentity)) return;
    this.rejectedIdentity = identity;
    this.log.warn(message);
  }
}

function buildSnapshot(doc: LedgerDocument): Snapshot {
  const records = ledgerRecords(doc);
  const byToken = new Map<string, PassportRecord>();
  const byOwner = new Map<string, PassportRecord[]>();
  for (const record of records) {
    byToken.set(record.tokenId, record);
    const owned = byOwner.get(record.ownerId);
    if (owned) owned.push(record);
    else byOwner.set(record.ownerId, [record]);
  }
  const accountKeys = new Map<string, Uint8Array[]>();
  for (const [account, keys] of Object.entries(doc.accounts)) {
    // parseLedger already checked each key decodes to 32 bytes.
    accountKeys.set(
      account,
      keys.map((k) => decodeBase58(k.slice('ed25519:'.length)) as Uint8Array),
    );
  }
  return { doc, records, byToken, byOwner, accountKeys };
}

function slice(records: readonly PassportRecord[], page: PageRequest): PassportRecord[] {
  const from = Math.max(0, Math.floor(page.fromIndex));
  const limit = Math.max(0, Math.floor(page.limit));
  return records.slice(from, from + limit);
}

function toIdentity(info: { ino: number; size: number; mtimeMs: number; ctimeMs: number }): FileIdentity {
  return { ino: info.ino, size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs };
}

function sameIdentity(a: FileIdentity | null, b: FileIdentity | null): boolean {
  return (
    !!a && !!b && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs
  );
}
