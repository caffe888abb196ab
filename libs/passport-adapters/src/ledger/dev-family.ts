/**
 * The development family (docs/protocol.md §8): on the first start with the local ledger and no keys, create
 * in DATA_DIR a family-root key (`keys/family-root.json`), a server key (`keys/server.json`), both in
 * NEAR's credential format with mode 0600 in a 0700 directory, and `ledger.json` holding the
 * family-root passport (`bc=local;sc=<contract>;id=devroot`) and the server's passport (a 12-letter id
 * with a valid face checksum, signed into the family). Then print how to mint a passport and log in.
 * A later start finds the keys and reuses everything; a half-created family stops the start with one
 * line rather than being silently overwritten.
 */
import { randomBytes } from 'node:crypto';
import { access, chmod, rm } from 'node:fs/promises';
import { makeDirectorySync } from '../files/make-directory.js';
import { dirname } from 'node:path';
import { formatNearCredentials, nearCredentialsFromSeed, randomFaceTokenId } from '@passport/core';
import { cryptoRandomInt } from '@passport/core/token-id';
import { familyRootTokenId } from '@passport/core/family';
import {
  LedgerFormatError,
  LedgerPathError,
  readLedgerFile,
  resolveLedgerPath,
  serializeLedger,
  writeFileAtomic,
  type LedgerDocument,
} from './ledger-file.js';
import { withLedgerLock } from './ledger-lock.js';
import { mintFamilyPassport } from './family-mint.js';

/** The development family cannot be used or created; `message` is one line naming the file. */
export class DevFamilyError extends Error {
  override readonly name = 'DevFamilyError';
}

/** Contract id of the local ledger when NEAR_CONTRACT_ID is not set. */
export const DEFAULT_LEDGER_CONTRACT_ID = 'passport.local';
export const DEV_FAMILY_ROOT_ID = 'devroot';

/** The server settings the development family reads (the API's configuration has them all). */
export interface DevFamilyConfig {
  /** Only `ledger` creates a family; any other chain is left alone. */
  readonly chain: string;
  readonly ledgerFile: string;
  readonly serverCredentialsFile: string;
  readonly familyCredentialsFile: string;
  readonly publicBaseUrl: string;
  readonly nearContractId: string | undefined;
}

export interface DevFamilyOutcome {
  readonly created: boolean;
  readonly serverTokenId?: string;
  readonly familyRootTokenId?: string;
}

export interface DevFamilyOptions {
  /** Receives the lines to print (the next steps after creation). */
  readonly log?: ((line: string) => void) | undefined;
  /** Random index source for the server's face id (tests make it deterministic). */
  readonly random?: ((n: number) => number) | undefined;
}

export async function ensureDevFamily(
  config: DevFamilyConfig,
  opts: DevFamilyOptions = {},
): Promise<DevFamilyOutcome> {
  if (config.chain !== 'ledger') return { created: false };
  // A symbolic link is followed (the family is written to its target and locked as every writer of
  // that ledger locks it); a link to nothing is refused rather than replaced by a new ledger.
  const ledgerFile = await resolveLedgerPath(config.ledgerFile).catch((error: Error) => {
    throw error instanceof LedgerPathError ? new DevFamilyError(`LEDGER_FILE ${error.message}`) : error;
  });
  config = { ...config, ledgerFile };
  // A complete family is only read: no lock, so a ledger directory the server may only read still
  // starts, and a start never waits behind a mint.
  const [hasServerKey, hasLedger] = await Promise.all([
    exists(config.serverCredentialsFile),
    exists(config.ledgerFile),
  ]);
  if (hasServerKey && hasLedger) return { created: false };
  // Anything to create is done under the ledger writers' lock, so of two processes starting on one
  // empty DATA_DIR the second finds the first's family (without it each creates one, the last writer's
  // files winning).
  makeDirectorySync(dirname(config.ledgerFile));
  const ledgerDir = dirname(config.ledgerFile);
  return withLedgerLock(`${config.ledgerFile}.lock`, () => ensureDevFamilyLocked(config, opts), {
    timeoutMs: 30_000,
  }).catch((error: NodeJS.ErrnoException) => {
    // Said as an unwritable DATA_DIR is for the store: a bare "EACCES: permission denied, open
    // '…/ledger.json.lock'" named neither the variable nor what to do (a README walkthrough).
    if (error?.code === 'EACCES' || error?.code === 'EPERM' || error?.code === 'EROFS')
      throw new DevFamilyError(
        `cannot create the development family in ${ledgerDir} (LEDGER_FILE, under DATA_DIR by default): ${error.message} (is the directory writable?)`,
      );
    throw error;
  });
}

/**
 * Throws a DevFamilyError when `file` is not a ledger (unreadable, not JSON, malformed), naming it once
 * and both ways out: LEDGER_FILE named the wrong file, or DATA_DIR's own ledger is damaged.
 */
async function assertLedgerReadable(file: string): Promise<void> {
  try {
    await readLedgerFile(file);
  } catch (error) {
    const why =
      error instanceof LedgerFormatError
        ? `${error.line > 0 ? `line ${error.line}: ` : ''}${error.field ? `${error.field} ` : ''}${error.problem}`
        : (error as Error).message;
    throw new DevFamilyError(
      `the ledger ${file} (LEDGER_FILE, DATA_DIR/ledger.json by default) is not a ledger (${why}): point LEDGER_FILE at a ledger, or repair or move away that file to create a new development family`,
    );
  }
}

async function ensureDevFamilyLocked(
  config: DevFamilyConfig,
  opts: DevFamilyOptions,
): Promise<DevFamilyOutcome> {
  const [hasServerKey, hasRootKey, hasLedger] = await Promise.all([
    exists(config.serverCredentialsFile),
    exists(config.familyCredentialsFile),
    exists(config.ledgerFile),
  ]);
  if (hasServerKey) {
    if (!hasLedger)
      throw new DevFamilyError(
        `LEDGER_FILE ${config.ledgerFile} does not exist (SERVER_CREDENTIALS_FILE ${config.serverCredentialsFile} does): restore the ledger, or, if a first start stopped before writing it, remove ${config.serverCredentialsFile} and ${config.familyCredentialsFile} to create a new development family`,
      );
    return { created: false };
  }
  if (hasRootKey || hasLedger) {
    // A file that is no ledger is said so first: the advice below, to remove it, was given for any file
    // LEDGER_FILE named by mistake (a README walkthrough's `not json`), with no word of what was wrong.
    if (hasLedger) await assertLedgerReadable(config.ledgerFile);
    const present = hasLedger ? config.ledgerFile : config.familyCredentialsFile;
    throw new DevFamilyError(
      `SERVER_CREDENTIALS_FILE ${config.serverCredentialsFile} is missing but ${present} exists; restore the key or remove ${present} to create a new development family`,
    );
  }

  const contractId = config.nearContractId ?? DEFAULT_LEDGER_CONTRACT_ID;
  const rootTokenId = familyRootTokenId({ chain: 'local', contract: contractId }, DEV_FAMILY_ROOT_ID);
  const root = nearCredentialsFromSeed(randomBytes(32));
  const server = nearCredentialsFromSeed(randomBytes(32));
  const serverTokenId = randomFaceTokenId(opts.random ?? cryptoRandomInt);

  const minted = mintFamilyPassport({
    rootTokenId,
    rootSecretSeed: root.secretSeed,
    tokenId: serverTokenId,
    ownerId: server.accountId,
    serverUrl: config.publicBaseUrl,
    fields: { userselected_dn: 'NNSWF=Development,NSWF=Server,Creature=service' },
  });

  const ledger: LedgerDocument = {
    contractId,
    passports: [
      {
        token_id: rootTokenId,
        owner_id: root.accountId,
        metadata: {
          token_id: rootTokenId,
          serviceprovider_id: rootTokenId,
          userselected_dn: 'NNSWF=Development,NSWF=Family Root',
        },
      },
      minted.entry,
    ],
    accounts: {},
  };

  for (const file of [config.familyCredentialsFile, config.serverCredentialsFile])
    await makePrivateDir(dirname(file));
  makeDirectorySync(dirname(config.ledgerFile));
  const written: string[] = [];
  const write = async (file: string, text: string, mode?: number) => {
    try {
      await writeFileAtomic(file, text, mode);
    } catch (error) {
      // The keys of a family whose ledger was never written name no passport: removed, so that the next
      // start (the disk full no more) creates the family instead of asking the operator to remove them
      // (a full-disk probe: the keys fit, the ledger did not, and every later start was refused).
      const removals = await Promise.allSettled(written.map((done) => rm(done, { force: true })));
      const left = written.filter((_, i) => removals[i].status === 'rejected');
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      const kept =
        left.length === 0
          ? 'nothing of it was kept'
          : `remove ${left.join(' and ')} (they could not be removed)`;
      throw new DevFamilyError(
        `cannot write ${file} (${code}) while creating the development family; ${kept}: ${code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG' ? 'free space on that volume' : 'fix the cause'} and start again`,
        { cause: error },
      );
    }
    written.push(file);
  };
  await write(
    config.familyCredentialsFile,
    `${JSON.stringify(formatNearCredentials(root), null, 2)}\n`,
    0o600,
  );
  await write(
    config.serverCredentialsFile,
    `${JSON.stringify(formatNearCredentials(server), null, 2)}\n`,
    0o600,
  );
  // The ledger last: it is what marks the family complete for the next start.
  await write(config.ledgerFile, serializeLedger(ledger));

  const log = opts.log ?? (() => undefined);
  for (const line of nextSteps(config, serverTokenId, rootTokenId)) log(line);
  return { created: true, serverTokenId, familyRootTokenId: rootTokenId };
}

/** `value` as one shell word: as it is when plain, else single-quoted (a DATA_DIR with spaces). */
function shellWord(value: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

function nextSteps(config: DevFamilyConfig, serverTokenId: string, rootTokenId: string): string[] {
  const api = shellWord(config.publicBaseUrl);
  const ledger = shellWord(config.ledgerFile);
  const familyKey = shellWord(config.familyCredentialsFile);
  return [
    `Created a development family: root ${rootTokenId}, server passport ${serverTokenId}.`,
    `  keys:   ${config.familyCredentialsFile}, ${config.serverCredentialsFile} (mode 0600)`,
    `  ledger: ${config.ledgerFile}`,
    'Next steps:',
    '  npm run -s passport -- keygen --out my-key.json',
    `  npm run -s passport -- mint --key my-key.json --ledger ${ledger} --family-key ${familyKey} --api ${api}`,
    `  npm run -s passport -- login --key my-key.json --passport <token id printed by mint> --api ${api} --save my.jwt`,
  ];
}

async function makePrivateDir(dir: string): Promise<void> {
  const created = makeDirectorySync(dir, 0o700);
  // mkdir's mode is reduced by the umask; fix only a directory we created (never chmod someone's /tmp).
  if (created !== undefined) await chmod(dir, 0o700);
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
