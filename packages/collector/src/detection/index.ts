// The loop-detection stage as the writers run it (storage/contract.ts LoopDetection): which scopes a batch must
// re-read (scopes.ts, key-filter.ts) and what their flags are (evaluate.ts). Storage reads and writes; every
// decision is made here, from the detectors' own rules.

import {
  DEFAULT_LOOP_THRESHOLDS,
  type LoopThresholds,
  runsEnded,
  SUPERSEDING_KINDS,
  TOOL_LOCAL_KINDS,
  triggerKeys,
} from '../detectors/loops/index.js';
import type {
  BatchCall,
  BatchLoopDetection,
  CallSequence,
  LoopDetection,
  LoopFlagRecord,
  LoopScopeRef,
  SequenceContext,
} from '../storage/contract.js';
import { evaluateScope } from './evaluate.js';
import { filterBytes, filterOf, type KeyFilter } from './key-filter.js';
import { addKeys, batchChecks } from './scopes.js';
import { TouchedCalls } from './touched.js';

export type { LoopThresholds } from '../detectors/loops/index.js';

/** The stage, with the deployment's thresholds. */
export function createLoopDetection(thresholds: Partial<LoopThresholds> = {}): LoopDetection {
  const t: LoopThresholds = { ...DEFAULT_LOOP_THRESHOLDS, ...thresholds };
  return { forBatch: (calls) => new Batch(calls, t) };
}

class Batch implements BatchLoopDetection {
  readonly conversations: readonly string[];
  /** The batch's calls as its checks count them; let go once the checks are made. */
  #touched: TouchedCalls | null;
  readonly #thresholds: LoopThresholds;
  readonly #filters = new Map<string, KeyFilter>();
  readonly #changed = new Set<string>();
  /** Conversations whose stored filter was of the earlier format: rebuilt from the first read of their calls. */
  readonly #legacy = new Set<string>();

  constructor(calls: readonly BatchCall[], thresholds: LoopThresholds) {
    this.#thresholds = thresholds;
    const touched = new TouchedCalls(calls.length);
    const conversations = new Set<string>();
    // Indexed loops, as in triggerKeys: once per call of every batch.
    for (let i = 0; i < calls.length; i++) {
      const { call, conversationId } = calls[i] as BatchCall;
      const keys = triggerKeys(call, thresholds);
      const ends = runsEnded(call);
      touched.add(call.traceId, conversationId, call.tool, call.startNs, keys, ends);
      if (conversationId && (keys.length > 0 || ends.length > 0)) conversations.add(conversationId);
    }
    this.#touched = touched;
    this.conversations = [...conversations].sort();
  }

  checks(traceExisted: (traceId: string) => boolean, stored: ReadonlyMap<string, unknown>) {
    const filterFor = (id: string) => {
      let f = this.#filters.get(id);
      if (!f) {
        f = filterOf(stored.get(id));
        if (f.legacy) this.#legacy.add(id);
        this.#filters.set(id, f);
      }
      return f;
    };
    if (!this.#touched) throw new Error('a batch is checked once');
    const { checks, changed } = batchChecks(this.#touched, traceExisted, filterFor);
    this.#touched = null;
    for (const id of changed) this.#changed.add(id);
    return checks.map((c) => ({
      ...c,
      // A re-read of some tools replaces only the kinds their calls decide, and sees the stored flags that
      // may supersede those.
      kinds: c.tools === null ? null : TOOL_LOCAL_KINDS,
      keep: c.tools === null ? [] : SUPERSEDING_KINDS,
    }));
  }

  evaluate(
    check: LoopScopeRef,
    sequence: CallSequence,
    context?: SequenceContext,
  ): LoopFlagRecord[] | 'needs-context' {
    const f = check.scope === 'conversation' ? this.#filters.get(check.key) : undefined;
    if (f && check.tools === null && this.#legacy.delete(check.key)) {
      // A filter of an earlier format said "maybe" to every key: a read of the whole conversation (which holds
      // this batch's calls too) rebuilds it, each key up to the rungs its calls climb. Only then, since the keys
      // of every call read cost a hash each, and a current filter holds them already; a read of some tools
      // would leave the others' keys out, so the filter stays "maybe" until a whole read.
      f.legacy = false;
      const read = new TouchedCalls(sequence.calls.length);
      for (const c of sequence.calls)
        read.add(c.traceId, null, c.tool, c.startNs, triggerKeys(c, this.#thresholds), []);
      addKeys(f, read);
      this.#changed.add(check.key);
    }
    const flags = evaluateScope(
      check,
      { calls: sequence.calls, modelCalls: context?.modelCalls ?? [], known: context?.known ?? [] },
      this.#thresholds,
    );
    // Without loops the context changes nothing (it only prices a loop, or drops one a kept flag explains).
    if (!context && flags.length > 0) return 'needs-context';
    // A detector's flag is already the record storage keeps (same fields, its kind a string there).
    return flags;
  }

  changedFilters(): Map<string, Uint8Array> {
    const out = new Map<string, Uint8Array>();
    for (const id of this.#changed) {
      const f = this.#filters.get(id);
      if (f) out.set(id, filterBytes(f));
    }
    return out;
  }
}
