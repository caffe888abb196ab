/**
 * `passport mint`: adds a passport to the local JSON ledger with the ledger's locked, atomic writer,
 * signed into the family with the family-root key (FAMILY_CREDENTIALS_FILE) the way the production
 * issuer signs (the token id is signed from the record; the metadata carries no `token_id`). The
 * running API notices the change on disk; no restart. Prints the new token id.
 * The passport's `subjectuniqueidentifier_url` defaults to the family server's URL as the ledger
 * records it (the server passport's own), so a passport minted for a server behind a proxy or on
 * another port names that server rather than http://localhost:3000.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  encodeBase58,
  hasUnprintable,
  isImplicitAccountId,
  printableText,
  urlForMessage,
  withoutTrailing,
} from '@passport/core/codecs';
import { isExactRoutePath, loginTokenBytes, MAX_LOGIN_TOKEN_BYTES } from '@passport/core/login';
import { isTokenId, randomFaceTokenId } from '@passport/core';
import { cryptoRandomInt } from '@passport/core/token-id';
import { DN_MAX_LENGTH, isDnFullyParsed } from '@passport/core/profile';
import { isNearAccountId } from '@passport/core/credentials';
import { parseServiceProviderId } from '@passport/core/family';
import { parsePassportTimeBound } from '@passport/core/passport';
import { webhookUrlOf } from '@passport/core/webhook';
import {
  assertNotHardLinked,
  LedgerPathError,
  LedgerLockedError,
  mintFamilyPassport,
  readLedgerFile,
  resolveLedgerPath,
  updateLedgerFile,
  type LedgerPassportEntry,
} from '@passport/adapters/ledger';
import {
  CliError,
  baseUrl,
  output,
  parseCommandLine,
  readCredentials,
  refuseEmptyFlags,
  type CliCommand,
  type CliIo,
} from '../cli-context.js';

const HELP = `Usage: passport mint [--key <owner.json> | --owner <account>] [options]

Adds a passport to the local ledger, signed into the development family.
  --ledger <file>          ledger file [LEDGER_FILE or DATA_DIR/ledger.json, DATA_DIR ./data];
                           a symbolic link is followed
  --family-key <file>      family-root credentials [FAMILY_CREDENTIALS_FILE or
                           DATA_DIR/keys/family-root.json]
  --key <file>             the owner's credentials (the owner is its account)
  --owner <account>        owner account id (instead of --key)
  --token-id <id>          12 lowercase letters [a random face id with a valid checksum]
  --api <url>              subjectuniqueidentifier_url [PUBLIC_BASE_URL, else the family server's URL
                           in the ledger (the passport of SERVER_CREDENTIALS_FILE, default
                           DATA_DIR/keys/server.json), else http://localhost:3000]
                           (--api-url: former name, still read)
  --not-before <iso>       start of validity: ISO 8601 date-time or date (a date: its first
                           millisecond), or Unix seconds (empty: unbounded)
  --not-after <iso>        end of validity, the same forms (a date: written as its last
                           millisecond, T23:59:59.999Z);
                           not before --not-before (empty: unbounded)
  --max-requests <n>       requests per window for JWT routes (0: unlimited)
  --maxrq-window <s>       window in seconds (a positive integer; unset: 60)
  --dn <text>              userselected_dn, e.g. "NNSWF=Ada,NSWF=Agent,Creature=robot"
  --webhook-url <url>      webhook base URL
  --admin-route <path[=rate]>  grant a privileged route (repeatable) -> permissioned_routes
  --add-account-key        with --key of a named account that has other keys in the
                           ledger: add this key to them (else refused: a key file only
                           claims its account; refused with --owner or an implicit
                           account's key, which record no key)
  --json                   print JSON`;

const COUNT_FLAGS = ['max-requests', 'maxrq-window'] as const;

function countError(flag: string, value: string): CliError {
  const rule = flag === 'maxrq-window' ? 'a positive integer of seconds' : 'a non-negative integer';
  return new CliError(`--${flag} must be ${rule} (got "${printableText(value, 40)}")`);
}

/**
 * `--max-requests -5`: the argument parser takes "-5" for an option and says only "argument is
 * ambiguous"; the value is named and its rule said, as for `--max-requests=-5`.
 */
function refuseNegativeCounts(args: readonly string[]): void {
  for (const flag of COUNT_FLAGS) {
    const at = args.indexOf(`--${flag}`);
    const value = at === -1 ? undefined : args[at + 1];
    if (value !== undefined && /^-\d/.test(value)) throw countError(flag, value);
  }
}

export const mintCommand: CliCommand = {
  name: 'mint',
  summary: 'add a passport to the local ledger, signed into the family',
  help: HELP,
  async run(args, io) {
    const values = parseMintFlags(args);
    // An empty one (an unset variable) is refused, not taken for none (a probe: --key "" --owner
    // bob.near; --ledger "" said "cannot read  (ENOENT)"; --dn "" minted an empty DN).
    refuseEmptyFlags(values, ['key', 'owner', 'ledger', 'family-key', 'dn']);
    // The server's variables, read as the server reads them (trimmed; an empty one is unset).
    const dataDir = configValue(io, 'DATA_DIR') ?? './data';
    const ledgerFile = values.ledger ?? configValue(io, 'LEDGER_FILE') ?? `${dataDir}/ledger.json`;
    const familyFile =
      values['family-key'] ??
      configValue(io, 'FAMILY_CREDENTIALS_FILE') ??
      `${dataDir}/keys/family-root.json`;
    if (values.key && values.owner) throw new CliError('give --key or --owner, not both');
    const ownerKey = values.key ? await readCredentials(values.key, '--key', io.stderr) : undefined;
    const owner = values.owner ?? ownerKey?.accountId;
    if (!owner) throw new CliError('--key <owner.json> or --owner <account> is required');
    // Used only to record the key of a named account (a probe: dropped without a word otherwise).
    if (values['add-account-key'] === true && (!ownerKey || isImplicitAccountId(ownerKey.accountId)))
      throw new CliError(
        "--add-account-key goes with --key of a named account: --owner records no key, and an implicit account's key is its id",
      );
    if (!isNearAccountId(owner)) throw new CliError(`--owner "${owner}" is not a NEAR account id`);
    const tokenId = values['token-id'] ?? randomFaceTokenId(cryptoRandomInt);
    if (!isTokenId(tokenId)) throw new CliError(`--token-id must be 12 lowercase letters (got "${tokenId}")`);
    const notAfter = checkedNotAfter(values);
    checkMintFlags(values, io);

    await checkLedgerPath(ledgerFile);
    // Neither named: the server's DATA_DIR files, which a server started elsewhere or with another
    // DATA_DIR did not make here (a walkthrough: "cannot read ./data/keys/family-root.json (ENOENT)").
    const defaults = {
      family: values['family-key'] === undefined && configValue(io, 'FAMILY_CREDENTIALS_FILE') === undefined,
      ledger: values.ledger === undefined && configValue(io, 'LEDGER_FILE') === undefined,
    };
    if (defaults.family) await refuseMissingDataDirFile(familyFile, dataDir, 'the family-root key');
    const family = await readCredentials(familyFile, '--family-key', io.stderr);
    if (defaults.ledger) await refuseMissingDataDirFile(ledgerFile, dataDir, 'the ledger');
    const ledger = await readLedgerForMint(ledgerFile);
    // The family root is the ledger's bc=…;sc=…;id=… passport owned by the family key.
    const root = ledger.passports.find(
      (p) => p.owner_id === family.accountId && parseServiceProviderId(p.token_id) !== null,
    );
    if (!root) throw new CliError(`${ledgerFile} has no family-root passport owned by ${family.accountId}`);
    const serverAccount = await readCredentials(
      configValue(io, 'SERVER_CREDENTIALS_FILE') ?? `${dataDir}/keys/server.json`,
      'SERVER_CREDENTIALS_FILE',
    ).then(
      (credentials) => credentials.accountId,
      () => null,
    );
    const serverPassport = familyServerPassport(ledger.passports, root.token_id, serverAccount);
    const apiBase = withoutTrailing(
      values.api ??
        values['api-url'] ??
        (io.env.PUBLIC_BASE_URL?.trim() || undefined) ??
        serverPassport?.metadata.subjectuniqueidentifier_url ??
        'http://localhost:3000',
      '/',
    );

    const permissionedRoutes = permissionedRoutesOf(values['admin-route']);
    // Signed the way the server's first start signs its own passport (one implementation).
    const { metadata, entry } = mintFamilyPassport({
      rootTokenId: root.token_id,
      rootSecretSeed: family.secretSeed,
      tokenId,
      ownerId: owner,
      serverUrl: apiBase,
      fields: {
        not_before: values['not-before'],
        not_after: notAfter,
        max_requests: values['max-requests'],
        maxrq_window: values['maxrq-window'],
        userselected_dn: values.dn,
        webhook_url: values['webhook-url'],
        permissioned_routes: permissionedRoutes,
      },
    });

    // The login copies metadata into the token: a passport whose tokens would not fit a request header
    // is refused by every login (PASSPORT_METADATA_TOO_LARGE), so it is not minted. Sized against the
    // family server as the ledger records it (an unknown owner account at its longest, 64 characters).
    const tokenBytes = loginTokenBytes({
      passport: { tokenId, metadata },
      server: {
        serviceProviderId: root.token_id,
        tokenId: serverPassport?.token_id ?? tokenId,
        ownerId: serverPassport?.owner_id ?? serverAccount ?? 'f'.repeat(64),
        publicBaseUrl: apiBase,
      },
    });
    if (tokenBytes > MAX_LOGIN_TOKEN_BYTES)
      throw new CliError(
        `the passport's login tokens would be ${tokenBytes} bytes (permissioned routes, webhook URL and the other copied metadata); the service issues at most ${MAX_LOGIN_TOKEN_BYTES} and refuses its logins (PASSPORT_METADATA_TOO_LARGE): nothing was written`,
      );

    // A named account's keys are the chain's to tell (the ledger's `accounts`): the key in hand is
    // recorded, or no login of the passport could be checked and its DID would name no key. Only for an
    // account with no keys yet, or with --add-account-key: a key file only claims its account, and a key
    // added to one that has keys would log in as every passport it owns (a review: any key file naming
    // alice.near made its key one of hers).
    const accountKey =
      ownerKey && !isImplicitAccountId(ownerKey.accountId)
        ? {
            account: ownerKey.accountId,
            key: `ed25519:${encodeBase58(ownerKey.publicKey)}`,
            addToExisting: values['add-account-key'] === true,
          }
        : undefined;
    await appendToLedger(ledgerFile, tokenId, entry, accountKey);
    io.done?.(`minted passport ${tokenId} into ${ledgerFile}`);
    output(io, !!values.json, { tokenId, ownerId: owner, contractId: ledger.contractId, metadata }, tokenId);
  },
};

/**
 * A variable of the server's configuration as the server reads it: trimmed, an empty one unset (a probe:
 * `LEDGER_FILE=` said "cannot read  (ENOENT)", and `DATA_DIR=` read /ledger.json).
 */
function configValue(io: CliIo, name: string): string | undefined {
  return io.env[name]?.trim() || undefined;
}

/**
 * The family server's passport as the ledger records it: the member with an http(s)
 * `subjectuniqueidentifier_url` owned by the server key when it is known, else the first such member.
 */
function familyServerPassport<
  P extends { token_id: string; owner_id: string; metadata: Record<string, string> },
>(passports: readonly P[], rootTokenId: string, serverAccount: string | null): P | undefined {
  const members = passports.filter(
    (p) =>
      p.token_id !== rootTokenId &&
      p.metadata.serviceprovider_id === rootTokenId &&
      typeof p.metadata.subjectuniqueidentifier_url === 'string' &&
      /^https?:\/\//.test(p.metadata.subjectuniqueidentifier_url),
  );
  return members.find((p) => p.owner_id === serverAccount) ?? members[0];
}

function parseMintFlags(args: string[]) {
  refuseNegativeCounts(args);
  const { values } = parseCommandLine({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      ledger: { type: 'string' },
      'family-key': { type: 'string' },
      key: { type: 'string' },
      owner: { type: 'string' },
      'token-id': { type: 'string' },
      api: { type: 'string' },
      'api-url': { type: 'string' },
      'not-before': { type: 'string' },
      'not-after': { type: 'string' },
      'max-requests': { type: 'string' },
      'maxrq-window': { type: 'string' },
      dn: { type: 'string' },
      'webhook-url': { type: 'string' },
      'admin-route': { type: 'string', multiple: true },
      'add-account-key': { type: 'boolean' },
      json: { type: 'boolean' },
    },
  });
  return values;
}

type MintFlags = ReturnType<typeof parseMintFlags>;

/**
 * `--not-before` and `--not-after` checked as the service reads them; the `not_after` to write (a date
 * names its whole day: its last millisecond).
 */
function checkedNotAfter(values: MintFlags): string | undefined {
  // Read as the service reads them (the core's parser): Date.parse takes "March 7, 2099", which the
  // service refuses (the passport is never live), and "1", which it reads as unbounded.
  const bounds = {
    'not-before': parsePassportTimeBound(values['not-before'], 'start'),
    'not-after': parsePassportTimeBound(values['not-after'], 'end'),
  };
  for (const flag of ['not-before', 'not-after'] as const) {
    const v = values[flag];
    if (v === undefined || v.trim() === '') continue;
    if (bounds[flag].kind === 'invalid')
      throw new CliError(
        `--${flag} must be an ISO 8601 date-time (or date, or Unix seconds) as the service reads it (got "${v}")`,
      );
    if (bounds[flag].kind === 'unbounded')
      throw new CliError(
        `--${flag} "${v}" is read as no bound (a time on 1970-01-01); leave it out or empty for that`,
      );
  }
  // A date given as --not-after names that whole day: written as its last millisecond, since the
  // service and production read a date on chain as its first (the passport would die a day early).
  const notAfterText = values['not-after']?.trim();
  let notAfter = values['not-after'];
  if (
    notAfterText !== undefined &&
    /^\d{4}-\d{2}-\d{2}$/.test(notAfterText) &&
    bounds['not-after'].kind === 'instant'
  ) {
    const lastMs = bounds['not-after'].ms + 86_400_000 - 1;
    bounds['not-after'] = { kind: 'instant', ms: lastMs };
    notAfter = new Date(lastMs).toISOString();
  }
  const [start, end] = [bounds['not-before'], bounds['not-after']];
  if (start.kind === 'instant' && end.kind === 'instant' && start.ms > end.ms)
    throw new CliError('--not-before is after --not-after: the passport would never be live');
  // A passport that has already expired is never live either ("20990101" read as Unix seconds is
  // 1970-08-31).
  if (end.kind === 'instant' && end.ms < Date.now())
    throw new CliError(
      `--not-after "${printableText(values['not-after'] ?? '', 64)}" is ${new Date(end.ms).toISOString()}, already past: the passport would never be live`,
    );
  return notAfter;
}

/** The other flags a passport is written with, refused here as the service would read them. */
function checkMintFlags(values: MintFlags, io: CliIo): void {
  for (const flag of COUNT_FLAGS) {
    const v = values[flag];
    if (v !== undefined && !/^\d{1,9}$/.test(v)) throw countError(flag, v);
  }
  // A window of 0 s is no window: the service would read it as 60 s, and /api/signclient refuses it.
  // Without a positive --max-requests (unlimited) the window means nothing and is written as given.
  const window = values['maxrq-window'];
  if (window !== undefined && Number(window) === 0 && Number(values['max-requests'] ?? 0) > 0)
    throw countError('maxrq-window', window);
  if (values.api !== undefined && values['api-url'] !== undefined && values.api !== values['api-url'])
    throw new CliError('give --api or --api-url (its former name), not both');
  // The passport's subjectuniqueidentifier_url: clients call it, so it is a URL they can call.
  // Checked as the server checks PUBLIC_BASE_URL (written as given: the server compares URLs normalised).
  if (values.api !== undefined) baseUrl(values.api, '--api');
  if (values['api-url'] !== undefined) baseUrl(values['api-url'], '--api-url');
  const envUrl = io.env.PUBLIC_BASE_URL?.trim();
  if (values.api === undefined && values['api-url'] === undefined && envUrl)
    baseUrl(envUrl, 'PUBLIC_BASE_URL');
  // Read as the service reads it (a bare host is https); another scheme is refused, not minted (the
  // service would ignore javascript:alert(1) everywhere).
  if (values['webhook-url'] !== undefined && webhookUrlOf(values['webhook-url']) === null)
    throw new CliError(
      `--webhook-url must be an http(s) URL or a host (got "${urlForMessage(values['webhook-url'])}")`,
    );
  // A DN is one line of text read by people and logs: control characters (a newline would end up in
  // the display name) are refused, not stored.
  if (values.dn !== undefined && /[\p{Cc}\u2028\u2029]/u.test(values.dn))
    throw new CliError('--dn may not contain control characters (newlines, tabs, …)');
  if (values.dn !== undefined && values.dn.length > DN_MAX_LENGTH)
    throw new CliError(
      `--dn is ${values.dn.length} characters; this service reads DNs of at most ${DN_MAX_LENGTH}`,
    );
  if (values.dn !== undefined && !isDnFullyParsed(values.dn)) {
    io.stderr(
      `warning: --dn is not a DN this service can fully read (components "Attr=Value" separated by commas; ` +
        `quote a value with commas: NNSWF="Smith, John"); it is stored as given.\n`,
    );
  }
}

async function checkLedgerPath(ledgerFile: string): Promise<void> {
  // A link to nothing (reading it says ENOENT, as if no ledger had been made), a loop of links or a
  // hard-linked ledger is named as such.
  await resolveLedgerPath(ledgerFile)
    .then(assertNotHardLinked)
    .catch((error: Error) => {
      throw error instanceof LedgerPathError ? new CliError(`${error.message}: nothing was written`) : error;
    });
}

/**
 * A file of the server's DATA_DIR that is not there: what to do, since it is made by the server's first
 * start in its own DATA_DIR (relative to where it was started), not by this tool.
 */
async function refuseMissingDataDirFile(file: string, dataDir: string, what: string): Promise<void> {
  const missing = await stat(file).then(
    () => false,
    (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
  );
  if (missing)
    throw new CliError(
      `cannot read ${file} (ENOENT): no development family in DATA_DIR ${dataDir} (${resolve(dataDir)}), where ${what} would be. The API's first start creates it in its DATA_DIR: start it once, and run this tool with the same DATA_DIR (or give --ledger and --family-key)`,
    );
}

async function readLedgerForMint(ledgerFile: string): Promise<Awaited<ReturnType<typeof readLedgerFile>>> {
  return readLedgerFile(ledgerFile).catch((error: NodeJS.ErrnoException) => {
    // A file system error in one line of our own (Node's text repeats the path and the call).
    if (error.code === 'ENOENT')
      throw new CliError(
        `cannot read ${ledgerFile} (ENOENT): start the API once to create the development ledger, or name one with --ledger`,
      );
    // Not a regular file (a FIFO, a device), over 64 MiB, no permission: what is there is the problem.
    if (typeof error.code === 'string') throw new CliError(`cannot read ${ledgerFile} (${error.code})`);
    throw new CliError(error.message);
  });
}

/** `--admin-route path[=rate]` entries as the `permissioned_routes` JSON, or undefined for none. */
function permissionedRoutesOf(entries: readonly string[] | undefined): string | undefined {
  if (!entries?.length) return undefined;
  const methods: Record<string, string> = {};
  for (const entry of entries) {
    const [path, rate, ...extra] = entry.split('=');
    // The server grants a route whose path equals a key (isRouteAllowed): a key in any other form
    // (dot segments, a newline, a query) would grant nothing, or not what it reads as.
    if (!isExactRoutePath(path))
      throw new CliError(
        `--admin-route must be an exact path starting with /, without dot segments, query, spaces or control characters (got ${JSON.stringify(printableText(entry, 200))})`,
      );
    // The router keeps an empty segment and a trailing slash (/api/metrics/ is another path, and 404), and
    // compares letter case: such a key is accepted by the parser and grants nothing this service routes.
    if (path.includes('//') || (path.length > 1 && path.endsWith('/')) || path !== path.toLowerCase())
      throw new CliError(
        `--admin-route must name a route as this service writes it: lower case, no empty segment or trailing slash (got ${JSON.stringify(printableText(entry, 200))})`,
      );
    // split('=', 2) would keep "b" of "/a=b=c" and drop the rest without a word.
    if (extra.length > 0) throw new CliError(`--admin-route takes one "=" (path=rate), got "${entry}"`);
    if (rate !== undefined && (rate === '' || hasUnprintable(rate)))
      throw new CliError(
        `--admin-route's rate must be printable text (got ${JSON.stringify(printableText(rate, 40))})`,
      );
    // A second rate for one route would replace the first without a word.
    if (Object.hasOwn(methods, path) && methods[path] !== (rate ?? '*'))
      throw new CliError(`--admin-route ${path} is given twice with different rates`);
    methods[path] = rate ?? '*';
  }
  return JSON.stringify({ entities: { methods } });
}

async function appendToLedger(
  ledgerFile: string,
  tokenId: string,
  entry: LedgerPassportEntry,
  accountKey: { account: string; key: string; addToExisting: boolean } | undefined,
): Promise<void> {
  await updateLedgerFile(ledgerFile, (doc) => {
    if (doc.passports.some((p) => p.token_id === tokenId))
      throw new CliError(`${tokenId} already exists in ${ledgerFile}`);
    return {
      ...doc,
      passports: [...doc.passports, entry],
      accounts: accountKey ? withAccountKey(doc.accounts, accountKey) : doc.accounts,
    };
  }).catch((error: unknown) => {
    // A refusal, not a fault: another mint (or a stale lock younger than 30 s) holds the ledger.
    if (error instanceof LedgerLockedError)
      throw new CliError(
        `${error.message}: nothing was written; retry, or remove the lock if no other passport command is running`,
      );
    // A file system refusal (a full disk, a read-only mount, no permission) in one line, as a refusal to
    // read is (not an "unexpected error", exit 1). The write is atomic: nothing changed.
    const code = (error as NodeJS.ErrnoException | null)?.code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code))
      throw new CliError(`cannot write ${ledgerFile} (${code}): nothing was written`);
    throw error;
  });
}

/**
 * The ledger's `accounts` with `key` among `account`'s keys (added once; the others kept). An account that
 * has other keys gets this one only when `addToExisting` says so; otherwise nothing is written.
 */
function withAccountKey(
  accounts: Readonly<Record<string, string[]>>,
  { account, key, addToExisting }: { account: string; key: string; addToExisting: boolean },
): Record<string, string[]> {
  const keys = Object.hasOwn(accounts, account) ? accounts[account]! : [];
  if (keys.includes(key)) return { ...accounts };
  if (keys.length > 0 && !addToExisting)
    throw new CliError(
      `${account} has other keys in the ledger and not this one: a key file only claims its account, so it is not added (give --add-account-key to add it); nothing was written`,
    );
  return { ...accounts, [account]: [...keys, key] };
}
