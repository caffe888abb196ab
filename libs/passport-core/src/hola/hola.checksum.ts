/**
 * @module hola/hola.checksum
 * The HOLA checksum letter (docs/protocol.md §2): the UTF-16 code units of
 * `signedPrefix + signatureAsInLine + "/"` summed, mod 23, indexing a 23-letter alphabet without the
 * look-alikes I, L and O. It catches transcription errors before any signature work.
 */

export const HOLA_CHECKSUM_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ';

/** Sum of the UTF-16 code units of `text` (exported for the documented example: 13807 → `H`). */
export function codeUnitSum(text: string, start = 0, end = text.length): number {
  let sum = 0;
  for (let i = start; i < end; i++) sum += text.charCodeAt(i);
  return sum;
}

/** The checksum letter of a code-unit sum. */
export function holaChecksumLetter(sum: number): string {
  return HOLA_CHECKSUM_ALPHABET[sum % HOLA_CHECKSUM_ALPHABET.length];
}

export function holaChecksum(signedPrefix: string, signatureText: string): string {
  // From JavaScript: numbers summed as empty text gave a letter for no line at all.
  if (typeof signedPrefix !== 'string' || typeof signatureText !== 'string')
    throw new TypeError('holaChecksum(signedPrefix, signatureText): both are strings');
  return holaChecksumLetter(codeUnitSum(signedPrefix) + codeUnitSum(signatureText) + 0x2f); // the "/" after the signature
}
