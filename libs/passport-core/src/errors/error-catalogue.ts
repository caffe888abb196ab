/**
 * @module errors/error-catalogue
 * The one list of machine codes the domain can answer with, gathered from the areas that own them
 * (each area's `*.errors.ts`), with each code's area and client-safe default message. Codes are stable
 * wire contracts: never rename one; add a new one instead. HTTP statuses are not decided here: the HTTP
 * app maps every code to its status (and owns the codes of its own transport, gateway, MCP and OpenAPI
 * layers); the served OpenAPI document lists each code under its status.
 */
import { SESSION_ERRORS } from '../auth/session.errors.js';
import { DID_ERRORS } from '../did/did.errors.js';
import { FEDERATION_ERRORS } from '../federation/federation.errors.js';
import { LOGIN_ERRORS } from '../login/login.errors.js';
import { IDENTITY_ERRORS } from '../profile/identity.errors.js';
import { SIGNCLIENT_ERRORS } from '../signclient/signclient.errors.js';
import { VERIFY_ERRORS } from '../verify/verify.errors.js';
import { WEBHOOK_ERRORS } from '../webhook/webhook.errors.js';
import { type AreaErrorDescriptor, type AreaErrors } from './area-errors.js';
import { COMMON_ERRORS } from './common.errors.js';

export type ErrorArea =
  'common' | 'login' | 'session' | 'identity' | 'hola' | 'did' | 'signclient' | 'webhook' | 'federation';

export interface ErrorDescriptor extends AreaErrorDescriptor {
  /** The area that owns the code. */
  readonly area: ErrorArea;
}

function inArea<const A extends ErrorArea, const T extends AreaErrors>(
  area: A,
  errors: T,
): { readonly [K in keyof T]: T[K] & { readonly area: A } } {
  return Object.fromEntries(
    Object.entries(errors).map(([code, d]) => [code, Object.freeze({ ...d, area })]),
  ) as never;
}

// Frozen, as the library's exported tables are (typed arrays aside): one caller's edit would change the codes' messages for
// the whole process (describeError returns these entries).
export const ERROR_CATALOGUE = Object.freeze({
  ...inArea('common', COMMON_ERRORS),
  ...inArea('login', LOGIN_ERRORS),
  ...inArea('session', SESSION_ERRORS),
  ...inArea('identity', IDENTITY_ERRORS),
  ...inArea('hola', VERIFY_ERRORS),
  ...inArea('did', DID_ERRORS),
  ...inArea('signclient', SIGNCLIENT_ERRORS),
  ...inArea('webhook', WEBHOOK_ERRORS),
  ...inArea('federation', FEDERATION_ERRORS),
} as const satisfies Record<string, ErrorDescriptor>);

export type CatalogueCode = keyof typeof ERROR_CATALOGUE;

/**
 * Codes with a dynamic suffix (spec: `LOGIN_MODE_POLICY_REJECTED_*`; docs/protocol.md §4:
 * `ISAUTHORIZEDSIGNER_<FIELD>_<PROBLEM>`). They share the descriptor of their prefix entry.
 */
export const DYNAMIC_CODE_PREFIXES = Object.freeze([
  'LOGIN_MODE_POLICY_REJECTED',
  'ISAUTHORIZEDSIGNER',
] as const);

/** Any code the domain can emit: a catalogue code or a dynamic code built on one of the prefixes. */
export type ErrorCode = CatalogueCode | `${(typeof DYNAMIC_CODE_PREFIXES)[number]}_${string}`;

const CODE_PATTERN = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;

/** The catalogue code a code is described by (itself, or the prefix of a dynamic code); undefined if none. */
export function catalogueCodeOf(code: string): CatalogueCode | undefined {
  if (Object.prototype.hasOwnProperty.call(ERROR_CATALOGUE, code)) return code as CatalogueCode;
  if (!CODE_PATTERN.test(code)) return undefined;
  return DYNAMIC_CODE_PREFIXES.find((p) => code.startsWith(`${p}_`));
}

/** The descriptor of a code, dynamic suffixes included; undefined for codes not in the catalogue. */
export function describeError(code: string): ErrorDescriptor | undefined {
  const known = catalogueCodeOf(code);
  return known === undefined ? undefined : ERROR_CATALOGUE[known];
}
