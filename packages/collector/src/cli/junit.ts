// The JUnit XML rendering of a report: one test case per tool, failing with the numbers (and their change
// against the baseline) when a threshold is crossed for it, and one per threshold given.

import { type Flag, totalWasted } from '../detectors/flag.js';
import { formatMs, formatPercent as pct } from '../format.js';
import { clientLabel } from './baseline.js';
import type { Verdict } from './report-format.js';
import type { Breach, DeltaThreshold } from './thresholds.js';

/**
 * A value for an XML attribute (or, with `inText`, for an element's text): escaped, and without what XML 1.0
 * cannot carry at all (C0 controls but tab, newline and carriage return; U+FFFE, U+FFFF; a lone surrogate), which
 * a strict parser would reject the whole document for. In an attribute a tab, newline or carriage return is
 * written as a character reference: a parser reads a literal one there as a space, and a client's name would
 * come back changed.
 */
export function xml(text: string, inText = false): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    const whitespace = code === 0x09 || code === 0x0a || code === 0x0d;
    if (code < 0x20 && !whitespace) continue;
    if ((code >= 0xd800 && code <= 0xdfff) || code === 0xfffe || code === 0xffff) continue;
    out += whitespace && !inText ? `&#${code};` : (ESCAPES[ch] ?? ch);
  }
  return out;
}

const ESCAPES: Record<string, string> = {
  '<': '&lt;',
  '>': '&gt;',
  '&': '&amp;',
  '"': '&quot;',
  "'": '&apos;',
};

type Case = { classname: string; name: string; failure?: { message: string; body: string } };

function render(c: Case): string {
  const body = c.failure
    ? `<failure message="${xml(c.failure.message)}">${xml(c.failure.body, true)}</failure>`
    : '';
  return `    <testcase classname="${xml(c.classname)}" name="${xml(c.name)}" time="0">${body}</testcase>`;
}

/** A threshold's case: failing with its breaches listed. */
function thresholdCase(classname: string, name: string, breaches: Breach[]): Case {
  if (breaches.length === 0) return { classname, name };
  return {
    classname,
    name,
    failure: {
      message:
        breaches.length === 1
          ? (breaches[0]?.message ?? '')
          : `${breaches.length} crossed: ${breaches.map((b) => b.tool).join(', ')}`,
      body: breaches
        .slice(0, 20)
        .map((b) => b.message)
        .join('\n'),
    },
  };
}

/** The report as a JUnit document with one test suite. */
export function junit(v: Verdict): string {
  const cases: Case[] = [];
  for (const t of v.tools) {
    const messages: string[] = [];
    const details: string[] = [];
    if (v.overThreshold.includes(t)) {
      messages.push(`error rate ${pct(t.errorRate)} is over ${pct(v.maxErrorRate ?? 0)}`);
      details.push(`${t.errors} of ${t.calls} calls failed: ${JSON.stringify(t.codes)}`);
    }
    for (const b of v.breaches)
      if (b.tool === t.name && !b.flag && !b.contract) messages.push(b.message);
    cases.push({
      classname: 'toolscope.tools',
      name: t.name,
      ...(messages.length
        ? { failure: { message: messages.join('; '), body: [...details, ...messages].join('\n') } }
        : {}),
    });
  }
  /** What these loops wasted, for a failure message (nothing for flags that are no loops). */
  const wastedOf = (flags: Flag[]) => {
    const w = totalWasted(flags);
    return w.loops === 0
      ? ''
      : `, wasting ${w.calls} calls, ${formatMs(w.ms)}, ${w.modelTokens} model tokens`;
  };
  for (const kind of v.failOn) {
    const present = v.failingFlags.filter((f) => f.kind === kind);
    cases.push({
      classname: 'toolscope.flags',
      name: kind,
      ...(present.length
        ? {
            failure: {
              message: `${present.length} ${kind} flag(s)${wastedOf(present)}`,
              body: present
                .slice(0, 20)
                .map((f) => f.summary)
                .join('\n'),
            },
          }
        : {}),
    });
  }
  const l = v.limits;
  if (l) {
    const of = (threshold: DeltaThreshold) => v.breaches.filter((b) => b.threshold === threshold);
    const numeric = [
      ['max-error-rate-increase', l.maxErrorRateIncrease],
      ['max-p95-increase', l.maxP95Increase],
      ['max-result-tokens-increase', l.maxResultTokensIncrease],
    ] as const;
    for (const [name, limit] of numeric)
      if (limit !== undefined) cases.push(thresholdCase('toolscope.thresholds', name, of(name)));
    for (const kind of l.failOnNew)
      cases.push(
        thresholdCase(
          'toolscope.new-flags',
          kind,
          of('fail-on-new').filter((b) => b.flag?.kind === kind),
        ),
      );
    if (l.failOnContractChange)
      cases.push(
        thresholdCase(
          'toolscope.contracts',
          'fail-on-contract-change',
          of('fail-on-contract-change'),
        ),
      );
  }
  const failures = cases.filter((c) => c.failure).length;
  // A report of one client's calls is a suite of its own name, its client in the suite's properties: test
  // reporters that merge suites by name keep it apart from every call's.
  const suite = v.client ? `toolscope ${clientLabel(v.client)}` : 'toolscope';
  const properties = v.client
    ? [
        '    <properties>',
        `      <property name="toolscope.client" value="${xml(v.client.name)}"/>`,
        ...(v.client.version === undefined
          ? []
          : [`      <property name="toolscope.clientVersion" value="${xml(v.client.version)}"/>`]),
        '    </properties>',
      ]
    : [];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="toolscope" tests="${cases.length}" failures="${failures}">`,
    `  <testsuite name="${xml(suite)}" tests="${cases.length}" failures="${failures}" errors="0">`,
    ...properties,
    ...cases.map(render),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
