// A model call in one line: which model answered, the tokens it read and wrote, and why it stopped. Shown
// between the calls of a story (what the agent decided next) and on the model's span in the timeline.
import type { ModelCallOut } from '@toolscope/collector/schemas';
import { formatMs } from '../time';
import { Mono } from '../ui';

const count = (n: number | null) => (n === null ? '?' : n.toLocaleString('en-US'));

export function ModelFacts({ model, durationMs }: { model: ModelCallOut; durationMs?: number }) {
  const name = [model.system, model.model].filter(Boolean).join(' ');
  return (
    <span class="model-facts">
      <span class="mark model">model</span> {name ? <Mono>{name}</Mono> : 'unnamed model'}{' '}
      <span class="num" title="input tokens / output tokens">
        {count(model.inputTokens)} in / {count(model.outputTokens)} out tokens
      </span>
      {model.finishReason && <span class="muted"> · finished: {model.finishReason}</span>}
      {durationMs !== undefined && <span class="muted num"> · {formatMs(durationMs)}</span>}
    </span>
  );
}
