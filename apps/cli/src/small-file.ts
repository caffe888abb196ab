/**
 * Reads a file the tool expects to be small (a key, a JWT), at most `maxBytes`: a wrong path given as
 * `--key` (a disk image, /dev/zero) is refused after `maxBytes + 1` bytes instead of being read into
 * memory whole (600 MB read, then "cannot read … (error)", in a probe). Reads through a handle, so a
 * FIFO or /dev/stdin still works; the bytes are decoded as UTF-8 once whole.
 */
import { open } from 'node:fs/promises';

/** A key file is ~200 bytes and a JWT of this service at most 8 KiB: 64 KiB is neither, by far. */
export const SMALL_FILE_MAX_BYTES = 64 * 1024;

/** The file holds more than the reader takes; `code` makes it one of the file errors callers name. */
export class FileTooLargeError extends Error {
  override readonly name = 'FileTooLargeError';
  readonly code = 'over_size_limit';
  constructor(
    readonly file: string,
    readonly maxBytes: number,
  ) {
    super(`${file} holds more than ${maxBytes} bytes`);
  }
}

export async function readSmallTextFile(file: string, maxBytes: number): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > maxBytes) throw new FileTooLargeError(file, maxBytes);
    }
    return buffer.toString('utf8', 0, length);
  } finally {
    await handle.close();
  }
}
