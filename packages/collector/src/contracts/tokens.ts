// Approximate tokens of a text as a model's context counts them: gpt-tokenizer's o200k_base encoding (the one of
// GPT-4o and later OpenAI models). Other vendors' tokenizers differ by some tens of percent on JSON, so the
// figure is a weight to compare tools by and to budget with, not a bill (docs/contracts.md).
// Loaded on first use: the encoding takes ~0.4 s and ~60 MB to load, and only contract spans need it.
import { createRequire } from 'node:module';

type Counter = (text: string) => number;
let counter: Counter | undefined;

function load(): Counter {
  const require = createRequire(import.meta.url);
  const mod: unknown = require('gpt-tokenizer/encoding/o200k_base');
  const count =
    typeof mod === 'object' && mod !== null ? Reflect.get(mod, 'countTokens') : undefined;
  if (typeof count !== 'function') throw new Error('gpt-tokenizer has no countTokens export');
  return (text) => count(text) as number;
}

/** Tokens of `text` in the o200k_base encoding. */
export function countTokens(text: string): number {
  counter ??= load();
  return counter(text);
}
