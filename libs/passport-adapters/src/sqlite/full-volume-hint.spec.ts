import { fullVolumeHint, NEARLY_FULL_BYTES } from './full-volume-hint.js';

// A full-disk probe: a restart after a crash on a full volume failed as "disk I/O error" (SQLite ran
// out of room rebuilding the WAL index), and the operator went looking for broken hardware.
describe('fullVolumeHint', () => {
  const file = '/data/passport.db';

  it('puts an I/O error or a full database down to the volume when it is nearly full', () => {
    for (const reason of ['disk I/O error', 'database or disk is full'])
      expect(fullVolumeHint(file, reason, () => 200 * 1024)).toBe(
        ' (the volume holding it is full: 200 KiB free; free space and start again)',
      );
  });

  it('says nothing when the volume has room, for other errors, or when its room cannot be read', () => {
    expect(fullVolumeHint(file, 'disk I/O error', () => NEARLY_FULL_BYTES)).toBe('');
    expect(fullVolumeHint(file, 'database schema is newer', () => 0)).toBe('');
    expect(
      fullVolumeHint(file, 'disk I/O error', () => {
        throw new Error('ENOENT');
      }),
    ).toBe('');
  });

  it('reads the directory of the database file', () => {
    const asked: string[] = [];
    fullVolumeHint(file, 'disk I/O error', (directory) => {
      asked.push(directory);
      return 0;
    });
    expect(asked).toEqual(['/data']);
  });
});
