/**
 * Property laws of the CLI's command-line parser (`parseCommandLine`) on any argument vector: it returns
 * what node's parseArgs returns, or throws CliError / HelpRequested only; a single-valued option given
 * twice is refused; help is honoured only where the rules allow it; with optionsBeforeArguments, an
 * option after the first argument (before `--`) is refused.
 */
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { CliError, HelpRequested, parseCommandLine } from '../../apps/cli/src/cli-context.js';

const options = {
  key: { type: 'string' as const },
  json: { type: 'boolean' as const },
  tag: { type: 'string' as const, multiple: true },
};
const arg = fc.constantFrom(
  '--key',
  'k.json',
  '--key=a',
  '--key=',
  '--json',
  '--json=1',
  '--tag',
  't',
  '--',
  '-h',
  '--help',
  '--nope',
  '-',
  '-k',
  'LINE',
  '--tag=x',
  '-hj',
);

describe('CLI flag laws', () => {
  it('oracle: returns what parseArgs returns, or throws only CliError/HelpRequested; single options never twice', () => {
    fc.assert(
      fc.property(fc.array(arg, { maxLength: 7 }), fc.boolean(), fc.boolean(), (args, before, alone) => {
        const config = { args, options, strict: true as const, allowPositionals: true as const };
        let result;
        try {
          result = parseCommandLine(config, { optionsBeforeArguments: before, helpOnlyAlone: alone });
        } catch (e) {
          expect(e instanceof CliError || e instanceof HelpRequested).toBe(true);
          if (e instanceof HelpRequested) {
            // (`--key -- -h`: the loose pass reads "--" as the key's value, so -h asks for help.)
            expect(args.some((a) => a === '--help' || /^-[a-z]*h/.test(a))).toBe(true);
            if (alone) expect(args.length).toBe(1);
          }
          return;
        }
        expect(result).toEqual(parseArgs(config));
        const named = parseArgs({ ...config, tokens: true }).tokens.filter(
          (t) => t.kind === 'option' && t.name !== 'tag',
        );
        expect(new Set(named.map((t) => (t.kind === 'option' ? t.name : ''))).size).toBe(named.length);
        if (before) {
          const tokens = parseArgs({ ...config, tokens: true }).tokens;
          const first = tokens.findIndex((t) => t.kind !== 'option');
          if (first !== -1) expect(tokens.slice(first).filter((t) => t.kind === 'option')).toEqual([]);
        }
      }),
      { numRuns: 3000 },
    );
  });
});
