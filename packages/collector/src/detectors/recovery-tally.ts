// Recovery counted (docs/recovery.md): per tool, per code, and per envelope message, the failures and what
// followed them, the repair rate (repaired of the failures whose outcome is known) and the share recovered.
import {
  RECOVERY_OUTCOMES,
  type Recovery,
  type RecoveryOutcome,
  UNKNOWN_INPUT,
} from './recovery.js';

export type OutcomeCounts = Record<RecoveryOutcome, number>;

export type RecoveryRow = {
  failures: number;
  outcomes: OutcomeCounts;
  /** The same tool came next, but whether its input changed is unknown (no input hash). */
  unknownInput: number;
  /** Failures whose next call, of the same tool, succeeded (repaired, or repeated with success). */
  recovered: number;
  /** repaired ÷ failures with a known outcome; null when there are none. */
  repairRate: number | null;
  /** recovered ÷ failures; null when there are none. */
  recoveredRate: number | null;
};
export type CodeRecovery = RecoveryRow & { code: string };
export type MessageRecovery = RecoveryRow & { code: string; message: string };
export type ToolRecovery = RecoveryRow & {
  tool: string;
  byCode: CodeRecovery[];
  byMessage: MessageRecovery[];
};

/** Most messages listed per code: the envelope's wordings are few; an author's REJECTED texts may be more. */
export const MESSAGES_PER_CODE = 5;

/** A recovery and the envelope message its failure carried (null when none was captured). */
export type Counted = { recovery: Recovery; message: string | null };

const rate = (n: number, of: number) => (of === 0 ? null : Math.round((n / of) * 10_000) / 10_000);

function rowOf(list: readonly Counted[]): RecoveryRow {
  const outcomes = Object.fromEntries(RECOVERY_OUTCOMES.map((o) => [o, 0])) as OutcomeCounts;
  let unknownInput = 0;
  let recovered = 0;
  for (const { recovery } of list) {
    if (recovery.outcome === UNKNOWN_INPUT) unknownInput++;
    else outcomes[recovery.outcome]++;
    if (recovery.recovered) recovered++;
  }
  return {
    failures: list.length,
    outcomes,
    unknownInput,
    recovered,
    repairRate: rate(outcomes.repaired, list.length - unknownInput),
    recoveredRate: rate(recovered, list.length),
  };
}

function groups<K>(list: readonly Counted[], key: (c: Counted) => K): Map<K, Counted[]> {
  const out = new Map<K, Counted[]>();
  for (const c of list) {
    const k = key(c);
    const g = out.get(k);
    if (g) g.push(c);
    else out.set(k, [c]);
  }
  return out;
}

const byName =
  <T>(key: (t: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

/** One tool's recovery: its row, per code, and per message (the most frequent per code). */
function toolRecovery(tool: string, list: readonly Counted[]): ToolRecovery {
  const codes = groups(list, (c) => c.recovery.call.code ?? '');
  const byCode = [...codes.entries()]
    .map(([code, l]) => ({ code, ...rowOf(l) }))
    .sort(byName((r) => r.code));
  const byMessage: MessageRecovery[] = [];
  for (const [code, l] of codes) {
    const messages = groups(
      l.filter((c) => c.message !== null),
      (c) => c.message as string,
    );
    const rows = [...messages.entries()]
      .map(([message, m]) => ({ code, message, ...rowOf(m) }))
      .sort((a, b) => b.failures - a.failures || (a.message < b.message ? -1 : 1))
      .slice(0, MESSAGES_PER_CODE);
    byMessage.push(...rows);
  }
  byMessage.sort((a, b) => (a.code === b.code ? 0 : a.code < b.code ? -1 : 1));
  return { tool, ...rowOf(list), byCode, byMessage };
}

/** Every tool's recovery (by name) and the total over them. */
export function tallyRecoveries(list: readonly Counted[]): {
  total: RecoveryRow;
  tools: ToolRecovery[];
} {
  const tools = [...groups(list, (c) => c.recovery.call.tool).entries()]
    .map(([tool, l]) => toolRecovery(tool, l))
    .sort(byName((t) => t.tool));
  return { total: rowOf(list), tools };
}
