// Redaction corpus (docs/redaction.md): with capture off no payload value leaves the process; with capture on
// none of the secrets does, while ordinary values stay readable for the on-call engineer.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, sensitive } from '../src/index.js';
import { isDeniedKey, luhnValid, redactString } from '../src/redact.js';
import { allAttributeText, createTracing } from './tracing.js';

const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUifQ.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
const SECRETS = {
  nestedPassword: 'P@ssw0rd-nested-1',
  authHeader: 'Bearer abcDEF123456ghiJKL',
  jwt: JWT,
  bearerInText: 'Bearer zz9plural-z-alpha-token',
  card1: '4111 1111 1111 1111',
  card2: '5500-0000-0000-0004',
  cardNumber: 4242424242424242,
  email: 'jane.doe@example.com',
  apiKey: 'sk_live_abcdefgh12345678',
  stripeInText: 'rk_test_ZYXWVU98765432',
  sensitiveField: 'sensitive-value-777',
  cookie: 'sid=s%3Asecretcookie',
  tailSecret: 'TAILSECRET-after-long-prefix',
};
const PLAIN = { note: 'order-note-plain', city: 'Lisbon' };

const payload = {
  sensitiveField: SECRETS.sensitiveField,
  user: { profile: { password: SECRETS.nestedPassword, city: PLAIN.city } },
  headers: { Authorization: SECRETS.authHeader, 'Set-Cookie': SECRETS.cookie },
  note: PLAIN.note,
  comment: `session token ${SECRETS.jwt} and ${SECRETS.bearerInText}`,
  billing: {
    cards: [`card ${SECRETS.card1}`, SECRETS.card2],
    raw: SECRETS.cardNumber,
    contact: `mail ${SECRETS.email}`,
  },
  config: { apiKey: SECRETS.apiKey, memo: `key ${SECRETS.stripeInText}` },
  long: `${'L'.repeat(10_000)}${SECRETS.tailSecret}`,
};

const secretTexts = [
  SECRETS.nestedPassword,
  'abcDEF123456ghiJKL',
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9',
  'dozjgNryP4J3jVmNHl0w5N',
  'zz9plural-z-alpha-token',
  '4111 1111 1111 1111',
  '5500-0000-0000-0004',
  '4242424242424242',
  'jane.doe@example.com',
  'sk_live_abcdefgh12345678',
  'rk_test_ZYXWVU98765432',
  'sensitive-value-777',
  'secretcookie',
  'TAILSECRET',
];

function echoTool(capture: boolean | undefined) {
  const tracing = createTracing();
  const input = z.looseObject({ sensitiveField: sensitive(z.string()) });
  const tool = defineTool({
    name: 'echo',
    version: '1',
    effect: 'read',
    description: 'Echoes its input',
    input,
    output: z.looseObject({ sensitiveField: sensitive(z.string()) }),
    execute: (value) => value,
    tracerProvider: tracing.provider,
    ...(capture === undefined ? {} : { capture }),
  });
  return { tool, tracing };
}

describe('capture off (the default)', () => {
  it('exports no payload value, secret or not, on success and on failure', async () => {
    const { tool, tracing } = echoTool(undefined);
    expect(await tool.call(payload)).toMatchObject({ ok: true });
    await tool.call({ ...payload, sensitiveField: 12 });
    const text = allAttributeText(tracing.spans());
    for (const value of [...secretTexts, PLAIN.note, PLAIN.city, 'LLLLLLLL'])
      expect(text).not.toContain(value);
    expect(tracing.spans()[0]?.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
  });
});

describe('capture on', () => {
  it('exports arguments and result with every secret masked and plain values kept', async () => {
    const { tool, tracing } = echoTool(true);
    await tool.call(payload);
    const span = tracing.only();
    const args = String(span.attributes['gen_ai.tool.call.arguments']);
    const result = String(span.attributes['gen_ai.tool.call.result']);
    for (const captured of [args, result]) {
      for (const secret of secretTexts) expect(captured).not.toContain(secret);
      expect(captured).toContain(PLAIN.note);
      expect(captured).toContain(PLAIN.city);
      expect(captured).toContain('[REDACTED');
    }
    const parsed = JSON.parse(args) as Record<string, unknown>;
    expect(parsed.sensitiveField).toBe('[REDACTED]');
    expect(JSON.stringify(parsed.long)).toMatch(/truncated/);
    expect(args.length).toBeLessThanOrEqual(4096);
  });

  it('masks sensitive fields even when nothing else about them looks secret', async () => {
    const { tool, tracing } = echoTool(true);
    await tool.call({ sensitiveField: 'plain-looking' });
    expect(String(tracing.only().attributes['gen_ai.tool.call.arguments'])).not.toContain(
      'plain-looking',
    );
  });

  it('bounds a huge payload to maxLength', async () => {
    const tracing = createTracing();
    const tool = defineTool({
      name: 'big',
      version: '1',
      effect: 'read',
      description: '',
      input: z.array(z.string()),
      output: z.null(),
      execute: () => null,
      tracerProvider: tracing.provider,
      capture: { maxLength: 1000 },
    });
    await tool.call(Array.from({ length: 500 }, (_, i) => `item-${i}`));
    const args = String(tracing.only().attributes['gen_ai.tool.call.arguments']);
    expect(args.length).toBeLessThanOrEqual(1000);
    expect(JSON.parse(args)).toMatchObject({ truncated: true });
  });
});

describe('redaction building blocks', () => {
  it('recognises deny-listed keys in their usual spellings', () => {
    for (const key of [
      'password',
      'userPassword',
      'x-api-key',
      'API_KEY',
      'accessToken',
      'Authorization',
      'client_secret',
      'sessionId',
      'creditCardNumber',
      'ssn',
      'Cookie',
    ]) {
      expect(isDeniedKey(key), key).toBe(true);
    }
    for (const key of [
      'customerId',
      'discardReason',
      'city',
      'tokenizerName2'.replace('2', ''),
      'passage',
    ]) {
      expect(isDeniedKey(key), key).toBe(false);
    }
  });

  it('checks card numbers with Luhn, so ordinary long numbers stay', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(redactString('order 1234567890123 shipped', 100)).toBe('order 1234567890123 shipped');
  });
});
