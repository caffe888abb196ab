/**
 * @module passport/passport.types
 * The passport as the chain stores it (same record shape as the NEAR contract and the local ledger,
 * docs/protocol.md §8). Metadata values are strings on chain; absent keys are simply missing.
 */

/** Metadata keys the protocol reads. Other keys are kept and passed through untouched. */
export interface PassportMetadata {
  token_id?: string;
  openapijson_url?: string;
  not_after?: string;
  not_before?: string;
  max_requests?: string;
  maxrq_window?: string;
  webhook_url?: string;
  webhook_cidr?: string;
  allowed_cidr?: string;
  allowed_iso3166list?: string;
  jwt_duration?: string;
  /** JSON `{"entities":{"methods":{"<exact path>":"<rate>"}}}` granting privileged routes. */
  permissioned_routes?: string;
  /** `bc=<chain>;sc=<contract>;id=<root>[;id=<root2>]` */
  serviceprovider_id?: string;
  /** base64url Ed25519 signature of the family root over the canonical metadata digest. */
  serviceprovider_signature?: string;
  subjectuniqueidentifier_url?: string;
  userselected_dn?: string;
  userselected_dn_info?: string;
  /** `"true"` when revoked on NEAR (the ledger uses the record's `revoked` flag). */
  revoked?: string;
  [key: string]: string | undefined;
}

export interface PassportRecord {
  /** On-chain token id: 12 lowercase letters, or a family-root string `bc=…;sc=…;id=<root>`. */
  readonly tokenId: string;
  /** Current on-chain owner: a 64-hex implicit account or a named account. */
  readonly ownerId: string;
  /** The contract that issued (stores) the passport. */
  readonly contractId: string;
  readonly metadata: PassportMetadata;
  readonly revoked: boolean;
}
