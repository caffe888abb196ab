/**
 * What every `passport` command gets: its arguments, the environment, output streams, and `fetch`
 * (injected so tests run the real commands in-process against a real server). A `CliError` is a user
 * error: the tool prints its one-line message and exits 2; anything else exits 1.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { parseNearCredentials, type NearCredentials } from '@passport/core';
import { stat } from 'node:fs/promises';
import { hasUnprintable, printableText, urlForMessage, withoutTrailing } from '@passport/core/codecs';
import { normalizedBaseUrl } from '@passport/core/login';
import { isLineDelegateId } from '@passport/core/hola';
import { FileTooLargeError, readSmallTextFile, SMALL_FILE_MAX_BYTES } from './small-file.js';

export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly fetch: typeof fetch;
  /**
   * Told what the run has done that stays done whatever is printed next (a passport minted, a file
   * written, a login): said on stderr when the result cannot be written to stdout (a full disk), so the
   * user learns of it (a probe: `mint > /dev/full` minted, then exited 2 without a word).
   */
  readonly done?: (what: string) => void;
  /**
   * Resolves once what was written to stdout so far has been written or has failed: false when it failed
   * (a full disk, a reader that went away). A command whose result is all the user gets of something
   * that stays open (login's token) learns here whether it arrived. Absent (in-process runs): written.
   */
  readonly stdoutWritten?: () => Promise<boolean>;
}

export class CliError extends Error {
  override readonly name = 'CliError';
}

export interface CliCommand {
  readonly name: string;
  readonly summary: string;
  readonly help: string;
  /** Resolves with the exit code when it is not 0 for success (`verify`: 1 when a line is not verified). */
  run(args: string[], io: CliIo): Promise<void | number>;
}

/** Prints a result: JSON with `--json`, otherwise the human line. */
export function output(io: CliIo, json: boolean, value: unknown, human: string): void {
  io.stdout(json ? `${terminalSafeJson(value)}\n` : `${human}\n`);
}

/**
 * Characters JSON.stringify leaves raw that a terminal acts on, that reorder what it shows or that hide
 * text: C1 controls (U+0080–U+009F, CSI among them), bidi and other format characters, every default-
 * ignorable code point (tag characters, variation selectors: they can hide a sentence), private
 * use, line and paragraph separators, the braille blank. (Raw C0 controls JSON escapes itself.)
 */
const TERMINAL_UNSAFE =
  /(?!\n)[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Default_Ignorable_Code_Point}\u2028\u2029\u2800]/gu; // (\n: the layout's)

/**
 * JSON whose strings carry those characters as `\uXXXX` escapes: the same JSON value, printable on a
 * terminal (a server can put a right-to-left override into a verdict's peerTokenId).
 */
export function terminalSafeJson(value: unknown): string {
  // Per UTF-16 unit, so a character outside the BMP (the invisible tag characters U+E0000…, which can
  // hide text) is its surrogate pair of escapes, as JSON writes it.
  const escape = (c: string): string =>
    Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join(
      '',
    );
  return JSON.stringify(value, null, 2).replace(TERMINAL_UNSAFE, escape);
}

/**
 * Reads a key file (NEAR credential JSON). `warn` is told when the file (a regular one: not a pipe or
 * /dev/stdin) can be read or written by others than its owner, as ssh warns: a probe found 0644 and 0666
 * key files used without a word (the files this tool writes are 0600).
 */
export async function readCredentials(
  file: string | undefined,
  flag = '--key',
  warn?: (text: string) => void,
): Promise<NearCredentials> {
  // Blank too, as refuseEmptyFlags refuses it (a review: login --key ' ' said "cannot read   (ENOENT)").
  if (file !== undefined && file.trim() === '' && flag.startsWith('--')) throw emptyFlag(flag);
  if (!file) throw new CliError(`${flag} <credentials.json> is required`);
  let text: string;
  try {
    text = await readSmallTextFile(file, SMALL_FILE_MAX_BYTES);
  } catch (error) {
    if (error instanceof FileTooLargeError)
      throw new CliError(`${file} holds more than ${SMALL_FILE_MAX_BYTES} bytes: not a credentials file`);
    throw new CliError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let credentials: NearCredentials;
  try {
    // A byte-order mark (Notepad, PowerShell 5's utf8) is no part of the JSON (a probe: "not JSON").
    credentials = parseNearCredentials(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new CliError(`${file}: ${(error as Error).message}`);
  }
  if (warn && process.platform !== 'win32') {
    const stats = await stat(file).catch(() => null);
    if (stats?.isFile() && (stats.mode & 0o077) !== 0)
      warn(
        `warning: ${printableText(file, 200)} can be read or written by others (mode ${(stats.mode & 0o777).toString(8).padStart(4, '0')}): a private key file should be chmod 600\n`,
      );
  }
  return credentials;
}

/**
 * A delegate id as a HOLA subagent line carries it (`hola --subagent`, `delegate --delegate-id`): 1..128
 * characters, no "/" (the line's separator), and printable (an id with a newline would make a "line"
 * of two lines that the API verifies; bidi controls would show another id than the one signed).
 */
export function checkDelegateId(value: string, flag: string): void {
  // Counted as a line carries it, uppercased ("ß" is "SS"), as the server counts it.
  if (value.length < 1 || value.toUpperCase().length > 128 || value.includes('/'))
    throw new CliError(`${flag} must be 1..128 characters once uppercased, without "/"`);
  if (hasUnprintable(value))
    throw new CliError(`${flag} may not contain control or format characters (newlines, bidi controls, …)`);
  // The server's rule (isauthorizedsigner, the line parser): something visible, nothing hidden (a probe:
  // U+3000 alone, or private-use characters, passed here and failed there with a bare code).
  if (!isLineDelegateId(value))
    throw new CliError(
      `${flag} must show something visible and hold no hidden, private-use or unassigned characters`,
    );
}

/**
 * Refuses each of `flags` given empty (or blank): `--ledger "$LEDGER"` with the variable unset is no
 * file and no absence either (a probe: "cannot read  (ENOENT)", "is required" of a flag that was given,
 * and `hola --api ''` sent to PASSPORT_API_URL's advice with the variable set).
 */
export function refuseEmptyFlags(values: Readonly<Record<string, unknown>>, flags: readonly string[]): void {
  for (const flag of flags) {
    const value = values[flag];
    if (typeof value === 'string' && value.trim() === '') throw emptyFlag(`--${flag}`);
  }
}

function emptyFlag(flag: string): CliError {
  return new CliError(`${flag} is empty (an unset variable?)`);
}

/** The API base URL without a trailing slash, from `--api` or PASSPORT_API_URL. */
export function apiUrl(value: string | undefined, io: CliIo): string {
  // Given empty, --api is refused, not taken for none (PASSPORT_API_URL may be set, or be the advice).
  if (value !== undefined && value.trim() === '') throw emptyFlag('--api');
  // Trimmed as it is checked (a probe: "http://host " passed the check, then failed as an unexpected error).
  const raw = (value ?? io.env.PASSPORT_API_URL)?.trim();
  if (!raw) throw new CliError('--api <url> is required (or set PASSPORT_API_URL)');
  // The paths are appended to it: in a query or fragment they would not be paths (`did` printed GET /).
  // Credentials: fetch refuses a URL holding them (every call failed as "cannot reach … (TypeError)").
  if (/[?#]/.test(raw) || hasCredentials(raw))
    throw new CliError(
      `--api must be an http(s) URL without credentials, query or fragment (got "${urlForMessage(raw)}")`,
    );
  return httpUrl(raw, '--api');
}

function hasCredentials(raw: string): boolean {
  if (!URL.canParse(raw)) return false;
  const url = new URL(raw);
  return url.username !== '' || url.password !== '';
}

/** `raw` without a trailing slash when it is an http(s) URL; otherwise a CliError naming `flag`. */
export function httpUrl(written: string, flag: string): string {
  const raw = written.trim();
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw new CliError(`${flag} must be an http(s) URL (got "${urlForMessage(raw)}")`);
  }
  return withoutTrailing(raw, '/');
}

/**
 * A base URL read as the server reads PUBLIC_BASE_URL (the core's `normalizedBaseUrl`): http(s) written
 * plainly, no query or fragment, in the server's spelling (else `HTTPS://API.EXAMPLE.COM:443/p/../q`
 * goes into an offline DID document as typed, where the server serves `https://api.example.com/q`).
 */
export function baseUrl(raw: string, name: string): string {
  const normalized = normalizedBaseUrl(raw);
  if (normalized === null)
    throw new CliError(
      `${name} must be an http(s) URL without credentials, query or fragment (got ${JSON.stringify(urlForMessage(raw))})`,
    );
  return normalized;
}

/** How long a call to the API may take, connection to last byte, unless PASSPORT_API_TIMEOUT_MS says. */
export const API_TIMEOUT_MS = 15_000;

/** PASSPORT_API_TIMEOUT_MS (1 ms to 10 min), else `API_TIMEOUT_MS`. */
export function apiTimeoutMs(io: CliIo): number {
  const raw = io.env.PASSPORT_API_TIMEOUT_MS?.trim();
  if (raw === undefined || raw === '') return API_TIMEOUT_MS;
  const ms = /^[0-9]{1,6}$/.test(raw) ? Number(raw) : NaN;
  if (!(ms >= 1 && ms <= 600_000))
    throw new CliError(
      `PASSPORT_API_TIMEOUT_MS must be a whole number of milliseconds from 1 to 600000 (got ${JSON.stringify(printableText(raw, 40))})`,
    );
  return ms;
}

/**
 * Calls the API and returns the parsed JSON body, typed as the server's documented shape `T`;
 * non-2xx answers become one line with the error code.
 */
export async function callApi<T = Record<string, unknown>>(
  io: CliIo,
  url: string,
  init: RequestInit = {},
): Promise<T> {
  let res: Response;
  let text: string;
  const { pathname } = new URL(url);
  const timeoutMs = apiTimeoutMs(io);
  try {
    // Redirects are not followed (a probe): a 307/308 would carry a signed login to whatever origin it
    // names, over plain http too, and a 301/302 turned a POST into a GET answered 405.
    res = await io.fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    // fetch says only "TypeError: fetch failed"; the reason (ECONNREFUSED, ENOTFOUND, a timeout, a port
    // fetch refuses to use) is its cause.
    const cause = (error as { cause?: { code?: unknown; message?: unknown; name?: unknown } } | null)?.cause;
    const reason =
      typeof cause?.code === 'string'
        ? cause.code
        : typeof cause?.message === 'string' && cause.message !== ''
          ? cause.message
          : typeof cause?.name === 'string'
            ? cause.name
            : (error as Error).name;
    // Connected but unanswered: the request may have been served (a login's session, a nonce), so it is
    // not "cannot reach" (a probe).
    if (reason === 'TimeoutError')
      throw new CliError(
        `${urlForMessage(url)}: no answer within ${timeoutMs / 1000} s (the request may have been served all the same; PASSPORT_API_TIMEOUT_MS sets the wait)`,
      );
    throw new CliError(`cannot reach ${new URL(url).origin} (${printableText(String(reason), 64)})`);
  }
  if (res.status >= 300 && res.status < 400) {
    const location = res.headers.get('location');
    const target = location !== null && URL.canParse(location, url) ? new URL(location, url).href : null;
    throw new CliError(
      `${pathname} answered ${res.status}, a redirect${target ? ` to ${urlForMessage(target)}` : ''}, which is not followed (a signed login or a token would go with it): give the API's own address as --api`,
    );
  }
  try {
    text = await readCapped(res, MAX_ANSWER_BYTES);
  } catch (error) {
    // Headers came, then the body stalled: served, as for a silent server (a CLI probe: "could not be
    // read (TimeoutError)" hid that, and the variable that sets the wait).
    if ((error as Error)?.name === 'TimeoutError')
      throw new CliError(
        `${urlForMessage(url)}: no answer within ${timeoutMs / 1000} s (the request may have been served all the same; PASSPORT_API_TIMEOUT_MS sets the wait)`,
      );
    throw new CliError(
      error instanceof CliError
        ? `${pathname} ${error.message}`
        : `${pathname}: the answer could not be read (${(error as Error).name})`,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new CliError(`${pathname} answered ${res.status} without JSON`);
  }
  // Printing a deeper answer overflowed the stack ("unexpected error", exit 1: a CLI probe's million
  // nested arrays, under the size cap). No answer of the API nests nearly this deep.
  if (nestingDepthOver(body, MAX_ANSWER_DEPTH))
    throw new CliError(
      `${pathname} answered ${res.status} with JSON nested deeper than ${MAX_ANSWER_DEPTH} levels`,
    );
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new CliError(`${pathname} answered ${res.status} without a JSON object`);
  if (!res.ok) {
    const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } }).error;
    // The server's words as one printable line: an answer cannot rewrite the terminal or split the error.
    const code = typeof error?.code === 'string' ? printableText(error.code, 80) : null;
    const reasonText =
      typeof error?.details === 'object' &&
      error.details !== null &&
      typeof (error.details as { reason?: unknown }).reason === 'string'
        ? ` (${printableText((error.details as { reason: string }).reason, 80)})`
        : '';
    // details.reason said too (a CLI probe: "details.reason says which" was printed without it).
    const message =
      typeof error?.message === 'string'
        ? `${printableText(error.message, 300)}${reasonText}`
        : reasonText.trim();
    const wait = retryAfterSeconds(res.headers.get('retry-after'), error?.details);
    throw new ApiError(
      `${pathname} answered ${res.status} ${code ?? ''}${message ? `: ${message}` : ''}${
        wait === null ? '' : ` (retry after ${wait} s)`
      }`.trim(),
      res.status,
      code,
      typeof error?.details === 'object' && error.details !== null
        ? (error.details as Record<string, unknown>)
        : {},
    );
  }
  return body as T;
}

/**
 * How long the server asked to wait (`Retry-After` in seconds, else the envelope's
 * `details.retryAfterSeconds`), or null: a 503 during a hold after a database reset said only
 * "temporarily unavailable" for ~5 minutes (a README walkthrough). A day at most; anything else is ignored.
 */
function retryAfterSeconds(header: string | null, details: unknown): number | null {
  const fromDetails = (details as { retryAfterSeconds?: unknown } | null | undefined)?.retryAfterSeconds;
  const text = header !== null && /^\d{1,6}$/.test(header.trim()) ? header.trim() : null;
  const seconds =
    text !== null ? Number(text) : Number.isSafeInteger(fromDetails) ? (fromDetails as number) : null;
  return seconds !== null && seconds >= 0 && seconds <= 86_400 ? seconds : null;
}

/** The most the tool reads of one answer (a hostile server's 600 MB body crashed it). */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

async function readCapped(res: Response, maxBytes: number): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new CliError(`answered more than ${maxBytes / 1024 / 1024} MiB`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

/** A non-2xx answer of the API: its one line, and the envelope's code and details for callers that react. */
export class ApiError extends CliError {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
    readonly details: Readonly<Record<string, unknown>>,
  ) {
    super(message);
  }
}

/** `parseArgs` errors (unknown flag, missing value) as one-line user errors. */
export function parseOrFail<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new CliError((error as Error).message.split('\n')[0]);
  }
}

/** Thrown by `parseCommandLine` when the command line asks for the command's help. */
export class HelpRequested extends Error {
  override readonly name = 'HelpRequested';
}

export interface CommandLineRules {
  /**
   * Options only before the first argument (`verify`: its arguments are lines from peers, and a
   * "line" `--api=http://evil` after real ones redirected the check).
   */
  readonly optionsBeforeArguments?: boolean;
  /**
   * `-h`/`--help` only as the one argument: with others, it is a usage error, not help and exit 0
   * (`verify --api A "$LINE" && trust` with the line "-h" trusted it).
   */
  readonly helpOnlyAlone?: boolean;
}

/**
 * The command's `parseArgs` (strict), plus the rules every command shares: `-h`/`--help` asks for help
 * only before `--` (after it, it is an argument), and with `optionsBeforeArguments` (verify, whose
 * arguments are peers' lines) only before the first argument; an option given twice is refused (which of
 * two values would win is not for a peer's input to decide).
 */
export function parseCommandLine<T extends ParseArgsConfig & { args: string[] }>(
  config: T,
  rules: CommandLineRules = {},
): ReturnType<typeof parseArgs<T>> {
  const options: NonNullable<ParseArgsConfig['options']> = { ...config.options };
  // A loose pass that never throws, with the command's options (so an option's value is not taken for
  // an argument), to see where help, arguments and options stand.
  const { tokens } = parseArgs({
    args: config.args,
    options: { ...options, help: { type: 'boolean', short: 'h' } },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const firstArgument = tokens.findIndex((t) => t.kind !== 'option');
  const terminator = tokens.findIndex((t) => t.kind === 'option-terminator');
  // A command whose arguments come from peers (verify's lines) takes help only before its first argument;
  // the others anywhere before `--` (`passport did <id> --help`).
  const scope = rules.optionsBeforeArguments
    ? tokens.slice(0, firstArgument === -1 ? tokens.length : firstArgument)
    : tokens.slice(0, terminator === -1 ? tokens.length : terminator);
  const help = scope.find((t) => t.kind === 'option' && t.name === 'help');
  if (help?.kind === 'option') {
    if (rules.helpOnlyAlone && config.args.length > 1)
      throw new CliError(
        `${help.rawName} with other arguments: nothing was done (a line that starts with "-" goes after --)`,
      );
    throw new HelpRequested();
  }
  if (rules.optionsBeforeArguments && firstArgument !== -1) {
    const late = tokens.slice(firstArgument).find((t) => t.kind === 'option');
    if (late?.kind === 'option')
      throw new CliError(
        `options go before the lines (${printableText(late.rawName, 40)} came after one); put -- before lines that start with "-"`,
      );
  }
  const parsed = parseOrFail(() => parseArgs(config));
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== 'option' || options[token.name]?.multiple) continue;
    if (seen.has(token.name)) throw new CliError(`--${printableText(token.name, 40)} is given twice`);
    seen.add(token.name);
  }
  return parsed;
}

/**
 * `--api` and the offline flags (`--ledger`, `--near-rpc`, `--contract`, `--host`) are alternatives: given
 * together, which one answers is not for the command line's order to decide (`verify --api A
 * --ledger L` would go to the API without a word), so the run stops with exit 2.
 */
export function refuseApiWithOfflineFlags(values: Readonly<Record<string, unknown>>): void {
  if (values.api === undefined) return;
  const offline = ['ledger', 'near-rpc', 'contract', 'host'].filter((flag) => values[flag] !== undefined);
  if (offline.length > 0)
    throw new CliError(
      `--api and --${offline.join(', --')} are alternatives: give one way to reach the chain`,
    );
}

/**
 * How far a time a server hands out to be signed (a login challenge, a HOLA nonce's timestamp) may be ahead
 * of this clock: what is signed for a later time is a login or a line the server can keep and use then,
 * in a window of its choosing. 300 s, the login challenge's own window, leaves room for a skewed clock.
 */
export const SERVER_TIME_AHEAD_MAX_MS = 300_000;

/** Refuses, before anything is signed, a server's time more than SERVER_TIME_AHEAD_MAX_MS ahead of this clock. */
export function refuseTimeAhead(what: string, iso: string, now = Date.now()): void {
  if (Date.parse(iso) > now + SERVER_TIME_AHEAD_MAX_MS)
    throw new CliError(
      `${what} answered ${printableText(iso, 80)}, ahead of this clock by more than ${SERVER_TIME_AHEAD_MAX_MS / 1000} s; nothing was signed`,
    );
}

/** How deep an API answer may nest (objects and arrays) before it is refused. */
const MAX_ANSWER_DEPTH = 64;

/** Whether `value` nests objects or arrays deeper than `limit` (iterative: no stack of its own). */
function nestingDepthOver(value: unknown, limit: number): boolean {
  const stack: Array<{ readonly value: unknown; readonly depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= limit) return true;
    for (const child of Object.values(current)) stack.push({ value: child, depth: depth + 1 });
  }
  return false;
}
