// The loop-detection stage as the writers run it (storage/loop-port.ts LoopDetection): which scopes a batch must
// re-read (scopes.ts, key-filter.ts) and what their flags are (evaluate.ts), and the one driver both backends
// run, as steps (`steps`). Storage reads and writes what a step says; every decision is made here, from the
// detectors' own rules.

import {
  CallKeys,
  callKeys,
  DEFAULT_LOOP_THRESHOLDS,
  type LoopThresholds,
  SUPERSEDING_KINDS,
  TOOL_LOCAL_KINDS,
} from '../detectors/loops/index.js';
import type {
  BatchCall,
  BatchLoopDetection,
  CallSequence,
  LoopDetection,
  LoopFlagRecord,
  LoopScopeRef,
  LoopStep,
  ScopeCallsRead,
  ScopeContextRead,
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
    // Indexed loops, as in callKeys: once per call of every batch, each call's keys written over the last's.
    const keys = new CallKeys();
    for (let i = 0; i < calls.length; i++) {
      const { call, conversationId } = calls[i] as BatchCall;
      callKeys(call, thresholds, keys);
      touched.add(call.traceId, conversationId, call.tool, call.startNs, keys);
      if (conversationId && (keys.length > 0 || keys.ends > 0)) conversations.add(conversationId);
    }
    this.#touched = touched;
    this.conversations = [...conversations].sort();
  }

  /**
   * The driver: each scope to re-read, its flags from its calls (and, when there are flags, from what they need
   * beyond them), then the changed filters. A read is answered by the writer before the next step is taken.
   */
  *steps(
    traceExisted: (traceId: string) => boolean,
    stored: ReadonlyMap<string, unknown>,
  ): Generator<LoopStep, void, void> {
    for (const check of this.#checks(traceExisted, stored)) {
      const calls: ScopeCallsRead = { step: 'calls', check, answer: null };
      yield calls;
      const sequence = answered(calls);
      let flags = this.#evaluate(check, sequence);
      // Most re-reads find no loop; without one, the context changes nothing (it only prices a loop, or drops
      // one a kept flag explains), so it is read only for flags.
      if (flags.length > 0) {
        const context: ScopeContextRead = { step: 'context', check, sequence, answer: null };
        yield context;
        flags = this.#evaluate(check, sequence, answered(context));
      }
      yield { step: 'flags', check, fromNs: sequence.fromNs, flags };
    }
    const filters = this.#changedFilters();
    if (filters.size > 0) yield { step: 'filters', filters };
  }

  #checks(traceExisted: (traceId: string) => boolean, stored: ReadonlyMap<string, unknown>) {
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

  #evaluate(
    check: LoopScopeRef,
    sequence: CallSequence,
    context?: SequenceContext,
  ): LoopFlagRecord[] {
    const f = check.scope === 'conversation' ? this.#filters.get(check.key) : undefined;
    if (f && check.tools === null && this.#legacy.delete(check.key)) {
      // A filter of an earlier format said "maybe" to every key: a read of the whole conversation (which holds
      // this batch's calls too) rebuilds it, each key up to the rungs its calls climb. Only then, since the keys
      // of every call read cost a hash each, and a current filter holds them already; a read of some tools
      // would leave the others' keys out, so the filter stays "maybe" until a whole read.
      f.legacy = false;
      const read = new TouchedCalls(sequence.calls.length);
      const keys = new CallKeys();
      for (const c of sequence.calls) {
        callKeys(c, this.#thresholds, keys);
        // A rebuild counts keys only: the run counts stay as they are.
        keys.ends = 0;
        read.add(c.traceId, null, c.tool, c.startNs, keys);
      }
      addKeys(f, read);
      this.#changed.add(check.key);
    }
    // A detector's flag is already the record storage keeps (same fields, its kind a string there).
    return evaluateScope(
      check,
      { calls: sequence.calls, modelCalls: context?.modelCalls ?? [], known: context?.known ?? [] },
      this.#thresholds,
    );
  }

  #changedFilters(): Map<string, Uint8Array> {
    const out = new Map<string, Uint8Array>();
    for (const id of this.#changed) {
      const f = this.#filters.get(id);
      if (f) out.set(id, filterBytes(f));
    }
    return out;
  }
}

/** A read's answer, which the writer sets before it takes the next step. */
function answered<T>(read: { step: string; answer: T | null }): T {
  if (read.answer === null) throw new Error(`the writer did not answer the ${read.step} read`);
  return read.answer;
}
