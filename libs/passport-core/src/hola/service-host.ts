/**
 * @module hola/service-host
 * The host marker of a deployment (`SERVICE_HOST`, written uppercase in every HOLA line it verifies):
 * `host[:port]`, the host a name of dot-separated labels (letters and digits, hyphens inside) or an IPv4
 * address of at most 253 characters (a DNS name's limit; a longer marker leaves no room in a
 * 512-character line), the port 1–65535 without leading zeros. One rule for the server's configuration,
 * the builder and the CLI, checked as a whole: "..", "-" and ":99999" pass a check of each character
 * alone, and a line built for such a marker verifies nowhere.
 */

const MARKER = /^([a-z0-9.-]+)(?::([1-9]\d{0,4}))?$/i;
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;

/** True for a host marker (any letter case: lines carry it uppercased). */
export function isServiceHostMarker(marker: unknown): marker is string {
  if (typeof marker !== 'string') return false;
  const match = MARKER.exec(marker);
  if (match === null) return false;
  const [, host, port] = match;
  if (host.length > 253 || (port !== undefined && Number(port) > 65535)) return false;
  return host.split('.').every((label) => LABEL.test(label));
}
