/**
 * `passport login`: the login flow of the spec: fetch the challenge (`GET /api/login/timestamp`), sign
 * UTF-8 `identifier + timestamp_iso` with the owner key (base64url), `POST /api/login` with `passportid`
 * (or `accountid`), `timestamp_iso` and the signature. Prints the JWT or stores it (mode 0600).
 */
import { buildLoginRequest, isTokenId } from '@passport/core';
import { isChallengeTimestampIso } from '@passport/core/login';
import { printableText } from '@passport/core/codecs';
import { createNodeSigner } from '@passport/core/node';
import {
  ApiError,
  apiUrl,
  callApi,
  CliError,
  output,
  parseCommandLine,
  readCredentials,
  refuseEmptyFlags,
  refuseTimeAhead,
  type CliCommand,
  type CliIo,
} from '../cli-context.js';
import { assertReplaceableJwtFile, isJwtShaped } from '../jwt-source.js';
import { writePrivateFile } from '../private-file.js';

/** Logins tried when other processes of the same passport take the challenge seconds first. */
const LOGIN_ATTEMPTS = 5;
/** Challenge reads while waiting for the server's next second (≤ 2 s in all). */
const CHALLENGE_POLLS = 20;
const CHALLENGE_POLL_MS = 100;

export const loginCommand: CliCommand = {
  name: 'login',
  summary: 'log in with a passport and get a JWT',
  help: `Usage: passport login --api <url> --key <file> (--passport <tokenId> | --account) [--save <file>] [--json]

Signs the login challenge with the key and prints the JWT (or writes it to --save, mode 0600, and
prints no token, --json included: jwt_token is null there;
an existing --save file is replaced only when it is empty or holds a saved JWT, never the --key file).
  --api <url>            the API [PASSPORT_API_URL]
  --passport <tokenId>   log in as this passport (passportid)
  --account              log in with the key's account id (accountid; the first passport it owns,
                         named on stderr)`,
  async run(args, io) {
    const { values } = parseCommandLine({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        api: { type: 'string' },
        key: { type: 'string' },
        passport: { type: 'string' },
        account: { type: 'boolean' },
        save: { type: 'string' },
        json: { type: 'boolean' },
      },
    });
    refuseEmptyFlags(values, ['passport']);
    const api = apiUrl(values.api, io);
    const credentials = await readCredentials(values.key, '--key', io.stderr);
    if (!!values.passport === !!values.account)
      throw new CliError('give exactly one of --passport <tokenId> or --account');
    if (values.passport !== undefined && !isTokenId(values.passport))
      throw new CliError(`--passport must be 12 lowercase letters (got "${values.passport}")`);
    const identifier = values.passport ?? credentials.accountId;
    // An empty --save (`--save "$JWT_FILE"` with the variable unset) printed the token (a CLI probe).
    // Blank too (a review: --save ' ' wrote the token to a file named " ", where keygen --out ' ' is refused).
    if (values.save !== undefined && values.save.trim() === '')
      throw new CliError('--save needs a file name; it was empty');
    // Before the login: a refused --save file opens no session.
    if (values.save) await assertReplaceableJwtFile(values.save, values.key);

    const signer = createNodeSigner(credentials.secretSeed);
    const fetchChallenge = async (): Promise<string> => {
      const challenge = await callApi(io, `${api}/api/login/timestamp`);
      if (typeof challenge.timestamp_iso !== 'string')
        throw new CliError('/api/login/timestamp answered without timestamp_iso');
      // The key signs the identifier and this text: anything but a challenge time could make it sign
      // another message (a delegation, protocol §6).
      if (!isChallengeTimestampIso(challenge.timestamp_iso))
        throw new CliError(
          `/api/login/timestamp answered a timestamp_iso that is not a challenge time (YYYY-MM-DDTHH:MM:SS.000Z): ${JSON.stringify(printableText(challenge.timestamp_iso, 80))}; nothing was signed`,
        );
      refuseTimeAhead('/api/login/timestamp', challenge.timestamp_iso);
      return challenge.timestamp_iso;
    };
    const logIn = async (timestampIso: string) => {
      const body = buildLoginRequest({
        identity: values.passport ? { passportId: identifier } : { accountId: identifier },
        timestampIso,
        signer,
      });
      return callApi(io, `${api}/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    };
    // One login per passport and challenge second (docs/protocol.md §3): when another process with the
    // same passport took this second's, the server's next second is a new challenge. The server's
    // clock decides when that is, so the challenge is fetched again until it changes.
    let timestampIso = await fetchChallenge();
    let result: Record<string, unknown> | undefined;
    for (let attempt = 1; result === undefined; attempt++) {
      try {
        result = await logIn(timestampIso);
      } catch (error) {
        const used = error instanceof ApiError && error.details.reason === 'challenge_already_used';
        if (!used || attempt >= LOGIN_ATTEMPTS) throw withForeignHint(error, api);
        const usedChallenge = timestampIso;
        for (let polls = 0; timestampIso === usedChallenge; polls++) {
          if (polls >= CHALLENGE_POLLS) throw error;
          await new Promise((resolve) => setTimeout(resolve, CHALLENGE_POLL_MS));
          timestampIso = await fetchChallenge();
        }
      }
    }
    const jwt = result.jwt_token;
    // Printed or saved as it is: a server may send escape sequences for a token.
    if (typeof jwt !== 'string' || !isJwtShaped(jwt))
      throw new CliError('/api/login answered without a jwt_token (three base64url segments)');
    if (values.save) {
      try {
        await writePrivateFile(values.save, `${jwt}\n`, { replace: true });
      } catch (error) {
        // The token is lost with the file: its session is closed rather than left to count against
        // the passport's open sessions (best effort; said only when the server said so: a probe's full
        // disk failed the logout too, and the CLI called the session closed).
        const closed = await closeSession(io, api, jwt, 'token not saved');
        const code = (error as NodeJS.ErrnoException).code ?? 'error';
        throw new CliError(
          closed
            ? `cannot write ${values.save} (${code}); the new session was closed`
            : `cannot write ${values.save} (${code}); the new session could not be closed either: it stays open until it expires (counting against the passport's open sessions)`,
        );
      }
    }
    // An account logs in as the first passport it owns, and anyone can transfer a passport to an account
    // without its consent: which one it became is said (the JWT alone does not say it to a reader).
    if (values.account) {
      const passport = result.passportid;
      io.stderr(
        isTokenId(passport)
          ? `logged in as passport ${passport}, the first one account ${identifier} owns (--passport <tokenId> logs in as a given one)\n`
          : `logged in with account ${identifier}; the server did not say as which passport\n`,
      );
    }
    // Never the token itself: stderr ends up in terminals and logs too.
    if (values.save) io.done?.(`logged in, and the JWT was saved to ${values.save}`);
    output(
      io,
      !!values.json,
      // Saved, the token stays out of standard output, as without --json (where scripts and CI logs
      // would keep it: a README walkthrough); `saved` names the file that holds it.
      {
        jwt_token: values.save ? null : jwt,
        passportid: result.passportid ?? null,
        saved: values.save ?? null,
      },
      values.save ? `JWT written to ${values.save}` : jwt,
    );
    // A printed token that did not arrive (a full disk, a reader that went away) is a session nobody
    // can use or close: closed, as when --save cannot write its file (a probe: "its session stays
    // open", and it was left open). The run fails (2): no token was received.
    if (!values.save && io.stdoutWritten && !(await io.stdoutWritten())) {
      const closed = await closeSession(io, api, jwt, 'token not printed');
      io.done?.(
        closed
          ? 'logged in, but the JWT could not be printed, so its session was closed'
          : "logged in, but the JWT could not be printed, and its session could not be closed either: it stays open until it expires (counting against the passport's open sessions)",
      );
      return 2;
    }
  },
};

/** Logs the session of `jwt` out (`POST /api/logout`); whether the server said it was closed. */
function closeSession(io: CliIo, api: string, jwt: string, reason: string): Promise<boolean> {
  return callApi(io, `${api}/api/logout`, {
    method: 'POST',
    headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
    body: JSON.stringify({ reason }),
  }).then(
    () => true,
    () => false,
  );
}

/**
 * A refusal of a passport issued for another API, with what to do: the server's log says it, the user at
 * the command line saw only "The login mode of this server rejects this passport" (a README
 * walkthrough: a server started again on another PORT than its first start recorded).
 */
function withForeignHint(error: unknown, api: string): unknown {
  if (!(error instanceof ApiError) || !error.code?.startsWith('LOGIN_MODE_POLICY_REJECTED_FOREIGN_'))
    return error;
  // The server's own public URL when it says it (details.thisApiUrl): behind a proxy, the --api given
  // (an internal address) is not what a passport of this API names, and the hint would repeat the
  // command that made the refused passport (a probe).
  const own = typeof error.details.thisApiUrl === 'string' ? error.details.thisApiUrl : api;
  const named = typeof error.details.passportApiUrl === 'string' ? ` (${error.details.passportApiUrl})` : '';
  return new ApiError(
    `${error.message} (the passport names another API${named} than this one, ${own}, as its server: mint one for this API with passport mint --api ${own})`,
    error.status,
    error.code,
    error.details,
  );
}
