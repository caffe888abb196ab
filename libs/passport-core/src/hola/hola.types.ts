/**
 * @module hola/hola.types
 * The shapes of a parsed HOLA line and of an early-validation failure (docs/protocol.md §2). The failure
 * travels unchanged into `error.details` of 400 `HOLA_VALIDATION_FAILED`.
 */

/** Early-validation reason codes, in the order they are checked (docs/protocol.md §2). */
export const HOLA_REASON_CODES = Object.freeze([
  'payload_is_json_object',
  'invalid_format',
  'unix_millis_timestamp',
  'placeholder_signature',
  'signature_not_base32',
  'checksum_invalid',
] as const);
export type HolaReasonCode = (typeof HOLA_REASON_CODES)[number];

/** The stage every early-validation failure reports (the spec names it for `checksum_invalid`). */
export const HOLA_VALIDATION_STAGE = 'format_checksum_and_payload_validation';

export interface HolaValidationFailure {
  readonly reasonCode: HolaReasonCode;
  readonly stage: typeof HOLA_VALIDATION_STAGE;
  /** One line telling the sender how to fix the line. */
  readonly hint: string;
  /** What exactly is wrong (names the field; for checksums the expected and received letters). */
  readonly message: string;
  readonly expected?: string;
  readonly received?: string;
}

export interface ParsedHola {
  readonly form: 'standard' | 'subagent';
  /** `MUNDO` (also for an empty slot) or an uppercase 12-letter token id. */
  readonly recipient: string;
  /** Lowercase token id of the sender; the issuer for subagent lines. */
  readonly senderTokenId: string;
  /** Subagent lines only (uppercased, as signed). */
  readonly delegateId?: string;
  /** Subagent lines only: the 32-byte key that signed the line. */
  readonly subagentPublicKey?: Uint8Array;
  /** Verbatim (as in the uppercased line, as signed). */
  readonly timestamp: string;
  readonly timestampMs: number;
  /** Uppercase hex. */
  readonly nonceHex: string;
  /** The host marker (the deployment's SERVICE_HOST uppercased). */
  readonly host: string;
  /** 64 bytes. */
  readonly signature: Uint8Array;
  /** The signature slot as in the line (uppercased, trailing `=` kept). */
  readonly signatureText: string;
  readonly checksum: string;
  /** The signed text: the uppercased line up to and including `/<HOST>/`, recipient normalised. */
  readonly signedPrefix: string;
}

export type HolaParseResult =
  | { readonly ok: true; readonly line: ParsedHola }
  | { readonly ok: false; readonly failure: HolaValidationFailure };
