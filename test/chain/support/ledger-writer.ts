/**
 * A ledger writer process for test/chain/ledger-lock.spec.ts: appends `count` passports with
 * updateLedgerFile once told 'go', and inside each change marks itself a holder (a file in
 * `holdersDir`) and counts the holders it sees, so that two writers inside the lock at once are
 * counted whatever the ledger ends up holding. With `crash` it exits while holding the lock on its
 * second append, leaving the lock behind as kill -9 would.
 * argv: ledgerFile holdersDir count prefix crash(0|1)
 */
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { updateLedgerFile } from '@passport/adapters/ledger';

const [file, holdersDir, countText, prefix, crash] = process.argv.slice(2);
const pause = new Int32Array(new SharedArrayBuffer(4));

process.once('message', () => {
  void (async () => {
    let overlaps = 0;
    const appended: string[] = [];
    try {
      for (let i = 0; i < Number(countText); i++) {
        const tokenId = `${prefix}${String.fromCharCode(97 + i)}`.padEnd(12, 'q');
        await updateLedgerFile(
          file,
          (doc) => {
            const marker = join(holdersDir, `${process.pid}-${i}`);
            writeFileSync(marker, '');
            if (readdirSync(holdersDir).length > 1) overlaps++;
            Atomics.wait(pause, 0, 0, 2); // hold the lock a moment, so overlaps would show
            if (crash === '1' && i === 1) {
              rmSync(marker);
              process.exit(0); // the lock stays behind, naming a process that is gone
            }
            rmSync(marker);
            return {
              ...doc,
              passports: [...doc.passports, { token_id: tokenId, owner_id: 'x.near', metadata: {} }],
            };
          },
          { lockTimeoutMs: 60_000 },
        );
        appended.push(tokenId);
      }
      process.send!({ result: { overlaps, appended } });
    } catch (error) {
      process.send!({ error: String(error) });
    }
  })();
});
process.send!('ready');
