/**
 * `passport verify`: checks HOLA lines through the API (`POST /api/identity/verify`) or offline against
 * a ledger file or a NEAR RPC, with the same result shape: offline runs the core's `createHolaVerifier`
 * with the same chain adapters as the API and an in-memory replay record shared by the lines of one
 * run (so a line given twice reports `nonce_replay` the second time).
 */
import {
  ChainUnavailableError,
  createHolaVerifier,
  MemoryReplayStore,
  type HolaVerifier,
  PassportError,
  systemClock,
} from '@passport/core';
import { printableText } from '@passport/core/codecs';
import {
  codeUnitSum,
  holaChecksumLetter,
  isServiceHostMarker,
  parseHola,
  type HolaValidationFailure,
  type VerifyHolaBody,
} from '@passport/core/hola';
import { createNodeVerifier } from '@passport/core/node';
import {
  apiUrl,
  callApi,
  CliError,
  output,
  parseCommandLine,
  type CliCommand,
  type CliIo,
  refuseApiWithOfflineFlags,
  refuseEmptyFlags,
} from '../cli-context.js';
import { checkOfflineChainFlags, hasOfflineChainFlag, openOfflineChain } from '../offline-chain.js';

/** Exit code when any line is not verified (as `cmp` answers "different"); usage and API errors are 2. */
export const NOT_VERIFIED_EXIT_CODE = 1;
/**
 * Exit code when every line verified but some are subagent lines: each proves only that the key it
 * carries signed it, which anyone can make naming any passport; the issuer's delegation is not checked
 * here, so `passport verify -- "$LINE" && trust` does not trust such a line as the issuer's.
 */
export const DELEGATION_NOT_CHECKED_EXIT_CODE = 3;

/**
 * The warning of every offline verdict: its replay record lives for one run, so a line used before (at
 * the API, or in another run) still verifies. Offline, `checks.nonceReplaySafe` is therefore left out
 * (as the core leaves out a check it did not make), never `true`, unless the run itself saw the nonce
 * (`false`, `nonce_replay`).
 */
export const REPLAY_NOT_CHECKED = {
  code: 'REPLAY_NOT_CHECKED',
  message:
    'Offline: the nonce was checked only against the other lines of this run, not against earlier uses.',
} as const;

/** A verdict as printed: the API's body, or the offline one with its REPLAY_NOT_CHECKED warning. */
type VerifyResult = Omit<VerifyHolaBody, 'warnings'> & {
  warnings?: readonly { readonly code: string; readonly message: string }[];
};

export const verifyCommand: CliCommand = {
  name: 'verify',
  summary: 'verify HOLA lines (API or offline against a ledger / NEAR RPC)',
  help: `Usage: passport verify (--api <url> | --ledger <file> --host <host[:port]> | --near-rpc <url> --contract <id> --host <host[:port]>) [options] -- <HOLA line>...

Options go before the lines; -- before them keeps a line that starts with "-" a line.
Without --api and the offline flags, the API is PASSPORT_API_URL.

  --max-age-ms <n>       freshness window [300000]
  --expected-recipient <tokenId|MUNDO>
                         the recipient the lines must name: a verified line addressed to
                         another is reported RECIPIENT_MISMATCH and makes the exit code 1
  --profile              include the public profile
  --json                 print the result bodies as JSON
Offline, one in-memory replay record serves all lines of the run, and no earlier use of a
nonce is known: every offline verdict carries the warning REPLAY_NOT_CHECKED and no
checks.nonceReplaySafe (false when a line repeats one of the run's nonces).
Exit code: 0 when every line is verified, 1 when any is not (the results are printed either way),
2 on a usage error or a refused request, 3 when every line is verified but some are subagent lines
(signed by the key they carry; whether the issuer delegated that key is not checked: ask the
issuer's POST /api/isauthorizedsigner).`,
  async run(args, io) {
    const { values, positionals } = parseCommandLine(
      {
        args,
        strict: true,
        allowPositionals: true,
        options: {
          api: { type: 'string' },
          ledger: { type: 'string' },
          'near-rpc': { type: 'string' },
          contract: { type: 'string' },
          host: { type: 'string' },
          'max-age-ms': { type: 'string' },
          'expected-recipient': { type: 'string' },
          profile: { type: 'boolean' },
          json: { type: 'boolean' },
        },
      },
      { optionsBeforeArguments: true, helpOnlyAlone: true },
    );
    if (positionals.length === 0) throw new CliError('give at least one HOLA line');
    const expected =
      values['expected-recipient'] === undefined
        ? undefined
        : expectedRecipientOf(values['expected-recipient']);
    refuseApiWithOfflineFlags(values);
    refuseEmptyFlags(values, ['host']);
    let maxAgeMs: number | undefined;
    if (values['max-age-ms'] !== undefined) {
      if (!/^\d{1,8}$/.test(values['max-age-ms']))
        throw new CliError('--max-age-ms must be an integer from 1 to 86400000');
      maxAgeMs = Number(values['max-age-ms']);
    }
    const api =
      values.api !== undefined ||
      (!hasOfflineChainFlag(values) && values.host === undefined && io.env.PASSPORT_API_URL)
        ? apiUrl(values.api, io)
        : null;
    // --host is what made the run offline (PASSPORT_API_URL is then not used): said as such, not "set
    // PASSPORT_API_URL" to a user who had (a docs probe).
    if (!api && values.host !== undefined && !hasOfflineChainFlag(values))
      throw new CliError(
        '--host checks offline: give --ledger <file> or --near-rpc <url> --contract <id> (or leave out --host to verify at the API)',
      );
    if (!api) checkOfflineChainFlags(values);
    if (!api && !values.host)
      throw new CliError('--host <host[:port]> (the SERVICE_HOST the lines name) is required offline');
    // The verifier refuses any other host (a URL, a port over 65535): said here as a usage error.
    if (!api && !isServiceHostMarker(values.host))
      throw new CliError(
        `--host must be host[:port] (letters, digits, dots and hyphens; a port 1-65535), got ${JSON.stringify(printableText(values.host!, 100))}`,
      );
    // Every line's format before any is verified: at the API, verifying a line uses its nonce, so a
    // run with a malformed second line would use the first and print nothing.
    positionals.forEach((hola, index) => {
      const failure = formatFailure(hola, api ? undefined : values.host);
      if (failure)
        throw new CliError(
          `HOLA_VALIDATION_FAILED (${failure.reasonCode}) in line ${index + 1}: ${printableText(failure.message.replace(/\.$/, ''), 300)}; nothing was verified`,
        );
    });
    const results: VerifyResult[] = [];
    try {
      if (api) {
        for (const hola of positionals)
          results.push(
            await verifyAtApi(io, api, hola, { ...values, 'expected-recipient': expected }, maxAgeMs),
          );
      } else {
        const { chain, close } = await openOfflineChain(values);
        const verifier = createHolaVerifier({
          chain,
          replay: new MemoryReplayStore(),
          clock: systemClock,
          verifier: createNodeVerifier(),
          serviceHost: values.host!,
        });
        try {
          for (const hola of positionals)
            results.push(
              await verifyOffline(verifier, hola, { ...values, 'expected-recipient': expected }, maxAgeMs),
            );
        } finally {
          close();
        }
      }
    } catch (error) {
      // The verdicts already obtained are printed (their nonces are used at the API), then the error.
      if (results.length === 0 || !(error instanceof CliError)) throw error;
      if (api) checkedAt(io, api, results.length);
      printVerdicts(
        io,
        readAll(results, positionals, expected),
        positionals,
        !!values.json,
        !api,
        positionals.length === 1,
      );
      throw new CliError(
        `${error.message} (line ${results.length + 1} of ${positionals.length}; the verdicts before it are printed)`,
      );
    }
    const read = readAll(results, positionals, expected);
    if (api) checkedAt(io, api, results.length);
    printVerdicts(io, read, positionals, !!values.json, !api, positionals.length === 1);
    // A script's `passport verify "$LINE" && trust` must not trust a replayed or forged line, nor a
    // subagent line as its issuer's (3), nor, when it named the recipient, a line addressed to another.
    if (!read.every((r) => r.verified && !isMisaddressed(r))) return NOT_VERIFIED_EXIT_CODE;
    return read.some((r) => r.isSubagentFormat === true) ? DELEGATION_NOT_CHECKED_EXIT_CODE : 0;
  },
};

/** What a run at the API leaves done: a line verified there has its nonce used (told for a lost output). */
function checkedAt(io: CliIo, api: string, count: number): void {
  io.done?.(
    `checked ${count} line${count === 1 ? '' : 's'} at ${api}: a line verified there has its nonce used now, and verifies again only as nonce_replay`,
  );
}

interface VerifyFlags {
  readonly 'expected-recipient'?: string;
  readonly profile?: boolean;
}

/**
 * Why `hola` is no HOLA line, as the verifier would refuse it (400 at the API). For an API the host
 * marker is the server's to judge, so the line's own marker stands in for it; and so is the timestamp's
 * grammar (a production server reads timestamps more loosely than this implementation):
 * a line whose only fault here is its timestamp's form goes to the server.
 */
function formatFailure(
  hola: string,
  serviceHost: string | undefined,
): Pick<HolaValidationFailure, 'reasonCode' | 'message'> | null {
  const fields = hola.split('/');
  const parsed = parseHola(hola, { serviceHost: serviceHost ?? fields[fields.length - 3] ?? '' });
  if (parsed.ok) return null;
  if (serviceHost !== undefined || !TIMESTAMP_GRAMMAR_FAILURE.test(parsed.failure.message))
    return parsed.failure;
  // The parser stops at the timestamp, before the checksum, which does not depend on how the timestamp
  // reads (a sum of the line's code units): a wrong one is refused by any server (else a line with a
  // broken timestamp and checksum goes to the API after a good line, whose nonce is then used).
  return checksumFailure(hola);
}

/** The parser's failure for a timestamp that is not its ISO 8601 grammar (checked after the other fields' forms, before the checksum). */
const TIMESTAMP_GRAMMAR_FAILURE = /^The timestamp must be ISO 8601/;

/** The checksum rule (docs/protocol.md §2) on an uppercased line: null when the letter is right. */
function checksumFailure(hola: string): Pick<HolaValidationFailure, 'reasonCode' | 'message'> | null {
  const line = hola.toUpperCase();
  const lastSlash = line.lastIndexOf('/');
  // An empty recipient (HOLA//…) is summed as MUNDO.
  const sum = codeUnitSum(line, 0, lastSlash + 1) + (line.startsWith('HOLA//') ? codeUnitSum('MUNDO') : 0);
  const expected = holaChecksumLetter(sum);
  const received = line.slice(lastSlash + 1);
  return received === expected
    ? null
    : {
        reasonCode: 'checksum_invalid',
        message: `HOLA checksum mismatch: expected "${expected}", received "${received}".`,
      };
}

async function verifyAtApi(
  io: CliIo,
  api: string,
  hola: string,
  values: VerifyFlags,
  maxAgeMs: number | undefined,
): Promise<VerifyResult> {
  const body = {
    hola,
    ...(maxAgeMs !== undefined ? { constraints: { maxAgeMs } } : {}),
    ...(values['expected-recipient'] ? { expectedRecipient: values['expected-recipient'] } : {}),
    ...(values.profile ? { includeProfile: true } : {}),
  };
  const result = await callApi<VerifyHolaBody>(io, `${api}/api/identity/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  // A server that answers 200 without a verify result is not one to trust: exit 2, not "not verified".
  if (
    typeof result.verified !== 'boolean' ||
    !Array.isArray(result.failureReasons) ||
    typeof result.peerTokenId !== 'string' ||
    !isVerdictShaped(result)
  )
    throw new CliError('/api/identity/verify answered 200 without a verify result');
  // A verdict on another line than the one sent (its sender, or for a subagent line its issuer) is not
  // a verdict on this one: an API that answers so is not one to trust. Read from the line's slots, so a
  // line the API reads and this parser does not (a looser timestamp) is checked too; token ids in any case.
  const sender = slotsOf(hola).sender;
  if (result.verified && result.peerTokenId.toLowerCase() !== sender)
    throw new CliError(
      `/api/identity/verify answered a verdict on ${printableText(result.peerTokenId, 64)}, not on the line's sender ${printableText(sender, 64)}`,
    );
  return result;
}

/**
 * The fields this command reads besides `verified` and `peerTokenId`, as the API sends them: failure
 * reasons as strings, warnings as objects with a string code, a profile as an object whose name and
 * creature are text or null. A hostile-server probe: `warnings: 5` ended the run "unexpected error: … is
 * not iterable" (exit 1, which a script reads as "not verified"), and so did a display name with no
 * string form.
 */
function isVerdictShaped(result: VerifyHolaBody): boolean {
  const { failureReasons, warnings, profile } = result as {
    failureReasons: unknown[];
    warnings?: unknown;
    profile?: unknown;
  };
  const isText = (value: unknown) => value === undefined || value === null || typeof value === 'string';
  return (
    failureReasons.every((reason) => typeof reason === 'string') &&
    (warnings === undefined ||
      (Array.isArray(warnings) &&
        warnings.every(
          (warning: unknown) =>
            typeof warning === 'object' &&
            warning !== null &&
            typeof (warning as { code?: unknown }).code === 'string',
        ))) &&
    (profile === undefined ||
      profile === null ||
      (typeof profile === 'object' &&
        !Array.isArray(profile) &&
        isText((profile as { displayName?: unknown }).displayName) &&
        isText((profile as { creature?: unknown }).creature)))
  );
}

async function verifyOffline(
  verifier: HolaVerifier,
  hola: string,
  values: VerifyFlags,
  maxAgeMs: number | undefined,
): Promise<VerifyResult> {
  try {
    const { body } = await verifier.verify({
      hola,
      maxAgeMs,
      includeProfile: !!values.profile,
      expectedRecipient: values['expected-recipient'],
    });
    const { nonceReplaySafe, ...checks } = body.checks;
    return {
      ...body,
      checks: nonceReplaySafe === false ? body.checks : checks,
      warnings: [...(body.warnings ?? []), REPLAY_NOT_CHECKED],
    };
  } catch (error) {
    if (error instanceof PassportError) {
      const reason = (error.details as { reasonCode?: string } | null)?.reasonCode;
      throw new CliError(`${error.code}${reason ? ` (${reason})` : ''}: ${error.message}`);
    }
    // The chain could not be read: an error of the run (2), not a verdict on the line (1).
    if (error instanceof ChainUnavailableError)
      throw new CliError(`the chain could not be read (${error.reason})`);
    throw error;
  }
}

/**
 * Text with nothing to read: only blanks, control characters, format characters (zero-width space, bidi
 * marks, word joiner) and lone surrogates, which printableText would show as '?' or as nothing.
 */
const NOTHING_TO_READ = /^[\s\p{Cc}\p{Cf}\p{Cs}]*$/u;

/** A profile field as text, or '' when it is left out, null or has nothing to read. */
const readableOf = (value: unknown): string =>
  value === null || value === undefined || NOTHING_TO_READ.test(String(value)) ? '' : String(value);

/** With --profile: the sender's self-declared name and creature, as printable text. */
function profileLine(result: VerifyResult): string {
  const profile = result.profile;
  if (!profile) return '';
  // Left out (another API; the shape check lets it pass), or with nothing to read (blanks, controls,
  // format characters), as null: a name "undefined", nothing, or only '?' was printed.
  const given = readableOf(profile.displayName);
  const name = given === '' ? '(no name)' : printableText(given, 128);
  const kind = readableOf(profile.creature);
  const creature = kind === '' ? '' : ` (${printableText(kind, 64)})`;
  return `\n  profile: ${name}${creature}, self-declared`;
}

/**
 * `--expected-recipient` as the service reads it: `MUNDO` or a token id, in any case (a token id
 * lowercased); anything else, an empty value included, is refused.
 */
function expectedRecipientOf(raw: string): string {
  const value = raw.trim();
  // Empty is MUNDO to the service, but here it is more likely an unset variable (`"$ME"`), which would
  // let every broadcast line through as meant for the caller.
  if (value === '')
    throw new CliError('--expected-recipient is empty: give a token id, or MUNDO for broadcast lines');
  if (value.toUpperCase() === 'MUNDO') return 'MUNDO';
  if (/^[a-z]{12}$/i.test(value)) return value.toLowerCase();
  throw new CliError(
    `--expected-recipient must be a token id (12 letters) or MUNDO (got "${printableText(raw, 64)}")`,
  );
}

/**
 * A line's form, sender (the issuer of a subagent line) and recipient, by their slots, read as the
 * service reads them: the whole line uppercased first (so `ſ` is `S`), a token id then named lowercase.
 */
function slotsOf(hola: string): {
  readonly subagent: boolean;
  readonly sender: string;
  readonly recipient: string;
} {
  const fields = hola.toUpperCase().split('/');
  const subagent = fields.length === 10;
  const recipient = fields[1] ?? '';
  return {
    subagent,
    sender: ((subagent ? fields[3] : fields[2]) ?? '').toLowerCase(),
    recipient: recipient === '' || recipient === 'MUNDO' ? 'MUNDO' : recipient.toLowerCase(),
  };
}

/**
 * A verdict as this command reads it: the line's own slots decide what an API may leave out (one of the
 * spec's shape sends no `isSubagentFormat`, and one that ignores `expectedRecipient` no warning). A
 * verified subagent line is marked so, with DELEGATION_NOT_CHECKED; a line addressed to another than
 * `--expected-recipient` gets RECIPIENT_MISMATCH. Both show in the printed JSON too.
 */
function asRead(result: VerifyResult, hola: string, expected: string | undefined): VerifyResult {
  const slots = slotsOf(hola);
  const warnings = [...(result.warnings ?? [])];
  const has = (code: string) => warnings.some((warning) => warning.code === code);
  const subagent = result.isSubagentFormat === true || slots.subagent;
  if (result.verified && subagent && !has('DELEGATION_NOT_CHECKED'))
    warnings.push({
      code: 'DELEGATION_NOT_CHECKED',
      message: `Signed by the key in the line, not by ${slots.sender}'s owner: ask POST /api/isauthorizedsigner whether ${slots.sender} delegated that key.`,
    });
  if (result.verified && expected !== undefined && slots.recipient !== expected && !has('RECIPIENT_MISMATCH'))
    warnings.push({
      code: 'RECIPIENT_MISMATCH',
      message: `The line is addressed to ${slots.recipient}, not to the expected ${expected}.`,
    });
  return {
    ...result,
    ...(subagent ? { isSubagentFormat: true as const } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

function readAll(results: readonly VerifyResult[], lines: readonly string[], expected: string | undefined) {
  return results.map((result, i) => asRead(result, lines[i], expected));
}

function isMisaddressed(result: VerifyResult): boolean {
  return result.warnings?.some((warning) => warning.code === 'RECIPIENT_MISMATCH') === true;
}

function printVerdicts(
  io: CliIo,
  results: readonly VerifyResult[],
  lines: readonly string[],
  json: boolean,
  offline: boolean,
  oneLine: boolean,
): void {
  const human = results
    .map((r, i) => {
      // The line's own slots for whom it is to and which delegate it names (an API may answer otherwise,
      // or leave them out); the server's other words as printable text (an answer must not write to the
      // terminal).
      const slots = slotsOf(lines[i]);
      const to = slots.recipient;
      const peer = printableText(String(r.peerTokenId), 64);
      const mark = r.verified && isMisaddressed(r) ? ' (RECIPIENT_MISMATCH: not the expected recipient)' : '';
      if (!r.verified)
        return `not verified ${peer}: ${printableText(r.failureReasons.map(String).join(', '), 500)}`;
      if (r.isSubagentFormat !== true) return `verified ${peer} -> ${to}${mark}`;
      const delegate = printableText(lines[i].toUpperCase().split('/')[2] ?? '', 128);
      return `verified subagent ${delegate} of ${peer} -> ${to} (delegation not checked)${mark}`;
    })
    .map((line, i) => line + profileLine(results[i]))
    .join('\n');
  // The JSON's shape follows the command line (one line: an object; several: an array), never how many
  // verdicts there were when an API failed midway.
  output(io, json, oneLine ? results[0] : results, human);
  if (offline && !json && results.some((r) => r.verified))
    io.stderr(
      `warning: ${REPLAY_NOT_CHECKED.code}: the nonces were checked only against this run's lines; a line used before still verifies\n`,
    );
}
