/**
 * @module hola/hola.builder
 * Builds and signs a HOLA line (docs/protocol.md §2) with a caller-held `Signer`: the private key never
 * leaves it. Used by the server's /api/testhola reply, the CLI, the client library and tests. The
 * result is checked with the parser, so a built line always parses back to its fields.
 */
import { encodeBase32 } from '../codecs/base32.codec.js';
import { utf8 } from '../codecs/utf8.codec.js';
import { type Signer } from '../ports/signature-verifier.port.js';
import { holaChecksum } from './hola.checksum.js';
import { parseHola } from './hola.parser.js';
import { isServiceHostMarker } from './service-host.js';

export interface BuildHolaParams {
  /** `MUNDO` (default) or the recipient's token id. */
  readonly recipient?: string;
  /** The sender's token id; the issuer's for subagent lines. */
  readonly senderTokenId: string;
  /** ISO 8601, as issued by GET /api/holanonce16ts. */
  readonly timestamp: string;
  readonly nonceHex: string;
  /** The verifying deployment's SERVICE_HOST (host[:port]). */
  readonly serviceHost: string;
  /** Signs the line; for subagent lines its public key is embedded in the line. */
  readonly signer: Signer;
  readonly subagent?: { readonly delegateId: string };
}

/** The signed prefix of a line (up to and including `/<HOST>/`), uppercased. */
export function holaSignedPrefix(
  params: Omit<BuildHolaParams, 'signer'> & { subagentPublicKey?: Uint8Array },
): string {
  const middle = params.subagent
    ? [
        params.subagent.delegateId,
        params.senderTokenId,
        encodeBase32(params.subagentPublicKey!),
        params.timestamp,
      ]
    : [params.senderTokenId, params.timestamp];
  return ['HOLA', params.recipient || 'MUNDO', ...middle, params.nonceHex, params.serviceHost, '']
    .join('/')
    .toUpperCase();
}

/** A signed HOLA line. Throws RangeError when the parameters cannot make a valid line. */
export function buildHolaLine(params: BuildHolaParams): string {
  // A host with CR/LF would make the signed line two lines.
  if (!isServiceHostMarker(params.serviceHost))
    throw new RangeError(
      `cannot build a HOLA line: the host marker must be host[:port] (got ${JSON.stringify(params.serviceHost)})`,
    );
  const signedPrefix = holaSignedPrefix({ ...params, subagentPublicKey: params.signer.publicKey });
  const signatureText = encodeBase32(params.signer.sign(utf8(signedPrefix)));
  const line = `${signedPrefix}${signatureText}/${holaChecksum(signedPrefix, signatureText)}`;
  const check = parseHola(line, { serviceHost: params.serviceHost });
  if (!check.ok) throw new RangeError(`cannot build a HOLA line: ${check.failure.message}`);
  return line;
}
