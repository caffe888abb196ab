/**
 * @module hola/hola.checksum
 * The HOLA checksum letter (resolutions §2): the UTF-16 code units of
 * `signedPrefix + signatureAsInLine + "/"` summed, mod 23, indexing a 23-letter alphabet without the
 * look-alikes I, L and O. It catches transcription errors before any signature work.
 */

export const HOLA_CHECKSUM_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ';

/** Sum of the UTF-16 code units of `text` (exported for the documented example: 13807 → `H`). */
export function codeUnitSum(text: string): number {
  let sum = 0;
  for (let i = 0; i < text.length; i++) sum += text.charCodeAt(i);
  return sum;
}

export function holaChecksum(signedPrefix: string, signatureText: string): string {
  const sum = codeUnitSum(signedPrefix) + codeUnitSum(signatureText) + 0x2f; // the "/" after the signature
  return HOLA_CHECKSUM_ALPHABET[sum % HOLA_CHECKSUM_ALPHABET.length];
}
