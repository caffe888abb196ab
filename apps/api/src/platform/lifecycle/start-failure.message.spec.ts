import { startFailureMessage } from './start-failure.message.js';

const paths = { dataDir: '/srv/passport' };

describe('startFailureMessage', () => {
  it('names DATA_DIR when the error names the directory or a path inside it', () => {
    expect(startFailureMessage(new Error('cannot create directory /srv/passport (ENOTDIR)'), paths)).toBe(
      'Passport Identity API failed to start: cannot create directory /srv/passport (ENOTDIR) (DATA_DIR=/srv/passport)',
    );
    expect(startFailureMessage(new Error("EACCES: open '/srv/passport/passport.db'"), paths)).toBe(
      "Passport Identity API failed to start: EACCES: open '/srv/passport/passport.db' (DATA_DIR=/srv/passport)",
    );
  });
  it('leaves other errors, a sibling sharing the prefix, and a message naming DATA_DIR already as they are', () => {
    expect(startFailureMessage(new Error('cannot create directory /srv/passport-old (ENOTDIR)'), paths)).toBe(
      'Passport Identity API failed to start: cannot create directory /srv/passport-old (ENOTDIR)',
    );
    expect(startFailureMessage(new Error('cannot listen on HOST=x PORT=1'), paths)).toBe(
      'Passport Identity API failed to start: cannot listen on HOST=x PORT=1',
    );
    const named =
      'cannot create the development family in /srv/passport (LEDGER_FILE, under DATA_DIR by default)';
    expect(startFailureMessage(new Error(named), paths)).toBe(
      `Passport Identity API failed to start: ${named}`,
    );
  });
  it('a DATA_DIR that is the root blames no path on it', () => {
    expect(startFailureMessage(new Error("EACCES: open '/etc/x'"), { dataDir: '/' })).toBe(
      "Passport Identity API failed to start: EACCES: open '/etc/x'",
    );
  });
  it('keeps the first line only, and takes a thrown non-error', () => {
    expect(startFailureMessage(new Error('first\nsecond'), undefined)).toBe(
      'Passport Identity API failed to start: first',
    );
    expect(startFailureMessage('plain', paths)).toBe('Passport Identity API failed to start: plain');
  });
});
