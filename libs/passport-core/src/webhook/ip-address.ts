/**
 * @module webhook/ip-address
 * The address classes of webhook targets (docs/protocol.md §10: loopback, private, link-local, CGNAT,
 * multicast, metadata and reserved addresses are refused). Classifying an address is the job of the
 * `AddressClassifier` port: the app adapts ipaddr.js (apps/api/src/webhooks/ip-address.classifier.ts),
 * so the core carries no hand-written range tables or address parser.
 */
export type { AddressClass, AddressClassifier } from '../ports/address-classifier.port.js';
