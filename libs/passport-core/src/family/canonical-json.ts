/**
 * @module family/canonical-json
 * The canonical JSON the family signature is computed over (docs/protocol.md §3): object keys sorted by
 * UTF-16 code units at every depth, no whitespace, object members whose value is `undefined` dropped.
 * Everything else is `JSON.stringify`, so signer and verifier agree on any JSON value.
 */

export function canonicalJson(value: unknown): string {
  const text = stringify(value);
  if (text === undefined) throw new TypeError('canonicalJson: the value has no JSON form.');
  return text;
}

function stringify(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) as string | undefined;
  if (Array.isArray(value)) {
    // Inside arrays, JSON.stringify writes holes and undefined as null; keep that.
    return `[${value.map((item) => stringify(item) ?? 'null').join(',')}]`;
  }
  const source = value as Record<string, unknown>;
  if (typeof (source as { toJSON?: unknown }).toJSON === 'function')
    return stringify((source as { toJSON(): unknown }).toJSON());
  const members: string[] = [];
  for (const key of Object.keys(source).sort()) {
    const member = stringify(source[key]);
    if (member !== undefined) members.push(`${JSON.stringify(key)}:${member}`);
  }
  return `{${members.join(',')}}`;
}
