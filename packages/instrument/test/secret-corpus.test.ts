// The secret corpus through the instrument's own paths (docs/redaction.md): every format masked in free text, in
// exception messages and in captured payloads (strings of JSON included), every usual spelling of a secret key,
// ordinary keys and values untouched, and defineTool's spans with capture off and on. The collector, the MCP
// adapters and the proxy run the same corpus in test/e2e/secrets-*.test.ts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../src/index.js';
import { createRedactor, redactString } from '../src/redact.js';
import { isSecretAttributeName, isSecretKey } from '../src/secret-keys.js';
import { maskSecrets, SECRET_RULES } from '../src/secret-values.js';
import * as sc from '../src/semconv.js';
import {
  corpusMessages,
  corpusPayloads,
  leaks,
  ORDINARY,
  ORDINARY_TEXTS,
  SECRET_FORMATS,
  SECRET_KEY_SPELLINGS,
} from './secret-corpus.js';
import { allAttributeText, createTracing } from './tracing.js';

describe('the corpus and the rules', () => {
  it('has a sample of every rule, and every sample names a rule', () => {
    const ids = new Set(SECRET_RULES.map((r) => r.id));
    const covered = new Set(SECRET_FORMATS.map((e) => e.rule));
    expect([...ids].filter((id) => !covered.has(id))).toEqual([]);
    expect([...covered].filter((id) => !ids.has(id))).toEqual([]);
  });

  it('is what docs/redaction.md promises: the page names every rule, and no rule it does not have', () => {
    const page = readFileSync(new URL('../../../docs/redaction.md', import.meta.url), 'utf8');
    const ids = SECRET_RULES.map((r) => r.id);
    expect(ids.filter((id) => !page.includes(`\`${id}\``))).toEqual([]);
    const tables = page.slice(page.indexOf('## Values'), page.indexOf('## Keys'));
    const named = [...tables.matchAll(/^\| (`[a-z0-9-]+`(?:, `[a-z0-9-]+`)*) /gm)].flatMap((m) =>
      (m[1] ?? '').split(', ').map((id) => id.slice(1, -1)),
    );
    expect(named.length).toBeGreaterThan(40);
    expect(named.filter((id) => !ids.includes(id))).toEqual([]);
  });

  it('masks every format in free text, keeping the words around it', () => {
    for (const e of SECRET_FORMATS) {
      const masked = maskSecrets(`before ${e.text} after`);
      expect(masked, e.id).not.toContain(e.needle);
      expect(masked, e.id).toContain('[REDACTED');
      expect(masked, e.id).toMatch(/^before .* after$/s);
    }
  });

  it('masks every format in an exception message, and in a JSON text', () => {
    for (const message of corpusMessages()) expect(leaks(redactString(message, 500))).toEqual([]);
    for (const e of SECRET_FORMATS) {
      const json = JSON.stringify({ detail: e.text, at: 'checkout' });
      expect(leaks(redactString(json, 4096)), e.id).toEqual([]);
    }
  });

  it('leaves ordinary text alone', () => {
    for (const text of ORDINARY_TEXTS) expect(maskSecrets(text)).toBe(text);
    expect(maskSecrets('the tokenizer: gpt2, passenger: Jane, sessions_count: 4')).toBe(
      'the tokenizer: gpt2, passenger: Jane, sessions_count: 4',
    );
  });
});

describe('secret keys', () => {
  it('knows the usual spellings', () => {
    for (const key of SECRET_KEY_SPELLINGS) expect(isSecretKey(key), key).toBe(true);
  });

  it('does not mask keys that merely contain a secret word', () => {
    for (const key of Object.keys(ORDINARY).filter(
      (k) => typeof Reflect.get(ORDINARY, k) === 'string',
    ))
      expect(isSecretKey(key), key).toBe(false);
    for (const key of [
      'passenger',
      'tokenizer',
      'sessions_count',
      'keyboard',
      'monkey',
      'discardReason',
    ])
      expect(isSecretKey(key), key).toBe(false);
  });

  it('never masks the span contract: no attribute of semconv.ts reads as secret, but for token counts', () => {
    const names = Object.entries(sc)
      .filter(([k, v]) => k.startsWith('ATTR_') && typeof v === 'string')
      .map(([, v]) => String(v));
    expect(names.length).toBeGreaterThan(30);
    const secret = names.filter(isSecretAttributeName);
    expect(secret.filter((n) => !/tokens$/.test(n))).toEqual([]);
    for (const name of ['mcp.session.id', 'session.id', 'ai.telemetry.metadata.sessionId'])
      expect(isSecretAttributeName(name), name).toBe(false);
    for (const name of ['http.request.header.authorization', 'db.connection_string', 'x.api_key'])
      expect(isSecretAttributeName(name), name).toBe(true);
  });
});

describe('the payload redactor', () => {
  const redact = createRedactor({ maxLength: 100_000 }, undefined);

  it('masks the whole corpus and keeps every ordinary key and value', () => {
    const payloads = corpusPayloads();
    expect(payloads.length).toBeGreaterThan(2);
    for (const payload of payloads) {
      const text = redact(payload);
      expect(leaks(text)).toEqual([]);
      expect(text).toContain(String(payload.marker));
      for (const ordinary of ORDINARY_TEXTS) expect(text).toContain(JSON.stringify(ordinary));
      expect(JSON.parse(text).ordinary).toMatchObject({
        sessions_count: 4,
        input_tokens: 1200,
        password_length: 12,
        has_password: false,
      });
    }
  });

  it('reads a text result of JSON by its keys, however long', () => {
    const text = JSON.stringify({ rows: corpusPayloads() });
    expect(text.length).toBeGreaterThan(4096);
    expect(leaks(redact({ content: [{ type: 'text', text }] }))).toEqual([]);
  });

  it('keeps the field names of a JSON Schema it is given', () => {
    const schema = { type: 'object', properties: { password: { type: 'string' } } };
    expect(JSON.parse(redact(schema))).toEqual(schema);
  });
});

describe('defineTool', () => {
  function tools(capture: boolean) {
    const tracing = createTracing();
    const common = {
      version: '1',
      effect: 'read' as const,
      description: '',
      input: z.looseObject({}),
      tracerProvider: tracing.provider,
      capture: capture ? { maxLength: 100_000 } : false,
    };
    const echo = defineTool({
      ...common,
      name: 'echo',
      output: z.looseObject({}),
      execute: (v) => v,
    });
    const fail = defineTool({
      ...common,
      name: 'fail',
      input: z.object({ message: z.string() }),
      output: z.null(),
      execute: ({ message }) => {
        throw new Error(message);
      },
    });
    return { tracing, echo, fail };
  }

  for (const capture of [false, true]) {
    it(`exports none of the corpus, capture ${capture ? 'on' : 'off'}`, async () => {
      const { tracing, echo, fail } = tools(capture);
      for (const payload of corpusPayloads()) await echo.call(payload);
      for (const message of corpusMessages()) await fail.call({ message });
      const spans = tracing.spans();
      expect(spans.length).toBe(corpusPayloads().length + corpusMessages().length);
      const exported = allAttributeText(spans);
      expect(leaks(exported)).toEqual([]);
      // What was exported is there to see: the messages (masked), and with capture the payloads.
      expect(exported).toContain('[REDACTED:api_key]');
      expect(exported.includes('corpus-slice-0-visible')).toBe(capture);
    });
  }
});
