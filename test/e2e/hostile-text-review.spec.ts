/**
 * Review (h3) of 99f90a9 and 6951f9f: cases the law files do not generate.
 * - webhookUrlOrNull/webhookUrlOf vs resolveWebhookTarget in the other direction: a webhook the sender
 *   posts to is shown (the sender's comment: "none of them shows no webhook where this one posts");
 *   webUrlOrNull now refuses a backslash anywhere, also in the path, where the sender turns it into `/`.
 * - a webhook_url of 2037..2048 characters: shown, refused by the sender as too_long (its hook URLs
 *   pass 2048), one of the "refusals that need no resolver".
 * - declaresUtf8OrNoCharset past an unreadable parameter reads only the first `charset=` of the rest.
 * - urlForMessage on scheme-less `user:password@host` keeps the user name (taken for a scheme).
 * - causeForLog keeps message lines that look like frames (`\n    at …` inside the message).
 */
import { resolveWebhookTarget } from '@passport/core';
import { type AddressClassifier } from '@passport/core/ports';
import { urlForMessage } from '@passport/core/codecs';
import { webhookUrlOrNull } from '../../libs/passport-core/src/profile/profile-links.js';
import { declaresUtf8OrNoCharset } from '../../apps/api/src/platform/http/json-body.parser.js';
import { causeForLog } from '../../apps/api/src/platform/http/cause-for-log.js';

const classifier = { classify: () => null, inCidrList: () => true } as unknown as AddressClassifier;

describe('review h3: webhook URL shown where the sender posts, and only there', () => {
  it('a backslash in the path: the sender posts (as /), so the profile and DID show it', () => {
    const value = 'https://hooks.example/team\\a';
    expect(resolveWebhookTarget(value, { classifier }).ok).toBe(true);
    expect(webhookUrlOrNull(value)).not.toBeNull();
  });

  it('a webhook_url whose hook URLs pass 2048 characters is not shown (the sender refuses it: too_long)', () => {
    const value = `https://${'a'.repeat(60)}.example/${'p'.repeat(1970)}`;
    expect(value.length).toBeLessThanOrEqual(2048);
    const sent = resolveWebhookTarget(value, { classifier });
    expect(sent.ok ? 'ok' : sent.reason).toBe('too_long');
    expect(webhookUrlOrNull(value)).toBeNull();
  });
});

describe('review h3: JSON charset past an unreadable parameter (fail closed)', () => {
  it('every charset= in the rest counts, not the first only', () => {
    expect(declaresUtf8OrNoCharset('application/json; a=b c; foo="x;charset=utf-8"; charset=latin1')).toBe(
      false,
    );
  });
});

describe('review h3: urlForMessage without a scheme', () => {
  it('does not quote the user name of user:password@host', () => {
    expect(urlForMessage('ADMINUSER:S3#CRET@rpc.example.com')).not.toContain('ADMINUSER');
  });
});

describe('review h3: causeForLog stack frames', () => {
  it('a frame-looking line of the message is not logged as a frame', () => {
    const logged = causeForLog(new Error('boom\n    at injected (forged.js:1:1)'))!;
    expect(logged.stack).not.toContain('forged.js');
  });
});
