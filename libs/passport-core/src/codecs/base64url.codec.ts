/**
 * @module codecs/base64url.codec
 * RFC 4648 §5 base64url. Output is always unpadded base64url. The login lane accepts only unpadded
 * base64url (`decodeBase64Url`); fields documented as "base64url or base64" (isauthorizedsigner)
 * use `decodeBase64Flexible`.
 */
const URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const LOOKUP: Int8Array = (() => {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < URL_ALPHABET.length; i++) table[URL_ALPHABET.charCodeAt(i)] = i;
  return table;
})();

export function encodeBase64Url(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out +=
      URL_ALPHABET[n >>> 18] +
      URL_ALPHABET[(n >>> 12) & 63] +
      URL_ALPHABET[(n >>> 6) & 63] +
      URL_ALPHABET[n & 63];
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i] << 16;
    out += URL_ALPHABET[n >>> 18] + URL_ALPHABET[(n >>> 12) & 63];
  } else if (rest === 2) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out += URL_ALPHABET[n >>> 18] + URL_ALPHABET[(n >>> 12) & 63] + URL_ALPHABET[(n >>> 6) & 63];
  }
  return out;
}

/** Strict unpadded base64url with canonical trailing bits; null otherwise. */
export function decodeBase64Url(text: string): Uint8Array | null {
  // From JavaScript any value arrives: 42 would decode to empty bytes.
  if (typeof text !== 'string' || text.length % 4 === 1) return null;
  const out = new Uint8Array(Math.floor((text.length * 6) / 8));
  let buffer = 0;
  let bits = 0;
  let index = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const value = c < 128 ? LOOKUP[c] : -1;
    if (value < 0) return null;
    buffer = (buffer << 6) | value;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[index++] = (buffer >>> bits) & 0xff;
    }
    buffer &= (1 << bits) - 1;
  }
  if (buffer !== 0) return null;
  return out;
}

/** base64url or standard base64, padded or not (never a mix of both alphabets); null otherwise. */
export function decodeBase64Flexible(text: string): Uint8Array | null {
  if (typeof text !== 'string') return null;
  const unpadded = text.replace(/={1,2}$/, '');
  if (unpadded !== text && text.length % 4 !== 0) return null;
  const hasStd = /[+/]/.test(unpadded);
  const hasUrl = /[-_]/.test(unpadded);
  if (hasStd && hasUrl) return null;
  return decodeBase64Url(hasStd ? unpadded.replace(/\+/g, '-').replace(/\//g, '_') : unpadded);
}
