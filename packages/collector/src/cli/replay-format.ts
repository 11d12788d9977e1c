// The renderings of a replay, in the formats `report` has: Markdown (a CI job summary), JSON, JUnit (one test
// case per fixture case, skipped ones marked so) and SARIF 2.1.0 (one result per case that did not meet --expect).
import { createHash } from 'node:crypto';
import {
  describeExpected,
  describeObserved,
  type Expectation,
  REPLAY_OUTCOMES,
} from '@toolscope/instrument/fixtures';
import { COLLECTOR_VERSION } from '../version.js';
import { xml } from './junit.js';
import { cell } from './markdown-cell.js';
import type { ReplayedCase } from './replay-run.js';

/** What a replay found, every rendering's input. */
export type ReplayReport = {
  /** The server command or URL. */
  target: string;
  expect: Expectation;
  cases: ReplayedCase[];
  /** Every replayed case met --expect (skipped and not reproduced ones do not count). */
  passed: boolean;
};

export const REPLAY_FORMAT_VERSION = 1;

const failing = (c: ReplayedCase) => c.result.kind === 'replayed' && !c.result.meets;

function now(c: ReplayedCase): string {
  return c.result.kind === 'skipped' ? '–' : describeObserved(c.result.observed);
}

function outcomeOf(c: ReplayedCase): string {
  return c.result.kind === 'replayed' ? c.result.outcome : c.result.kind;
}

export function markdown(r: ReplayReport): string {
  const bad = r.cases.filter(failing).length;
  const lines = [
    `## Toolscope replay against \`${cell(r.target)}\`: ${r.passed ? '✅' : `❌ ${bad} case${bad === 1 ? '' : 's'}`} ${r.passed ? 'as expected' : 'not as expected'} (--expect ${r.expect})`,
    '',
  ];
  const counts = [...REPLAY_OUTCOMES, 'not reproduced', 'skipped'].map(
    (o) => `${o} ${r.cases.filter((c) => outcomeOf(c) === o).length}`,
  );
  lines.push(`${r.cases.length} cases: ${counts.join(', ')}.`, '');
  if (r.cases.length > 0) {
    lines.push('| tool | case | recorded | now | outcome |', '| --- | --- | --- | --- | --- |');
    for (const c of r.cases) {
      const mark = failing(c) ? ' ❌' : '';
      lines.push(
        `| ${cell(c.tool)} | ${cell(c.title)} | ${cell(describeExpected(c.expected))} | ${cell(now(c))} | ${cell(outcomeOf(c))}${mark} |`,
      );
    }
  }
  const why = r.cases.filter((c) => c.result.kind !== 'replayed');
  if (why.length > 0) {
    lines.push('', '### Not replayed', '');
    for (const c of why)
      if (c.result.kind !== 'replayed')
        lines.push(`- ${cell(c.tool)} \`${cell(c.id)}\`: ${cell(c.result.reason)}`);
  }
  return `${lines.join('\n')}\n`;
}

export function json(r: ReplayReport): string {
  const body = {
    formatVersion: REPLAY_FORMAT_VERSION,
    target: r.target,
    expect: r.expect,
    passed: r.passed,
    counts: Object.fromEntries(
      [...REPLAY_OUTCOMES, 'not reproduced', 'skipped'].map((o) => [
        o,
        r.cases.filter((c) => outcomeOf(c) === o).length,
      ]),
    ),
    cases: r.cases,
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}

export function junit(r: ReplayReport): string {
  const cases = r.cases.map((c) => {
    const head = `    <testcase classname="${xml(`toolscope.replay.${c.tool}`)}" name="${xml(c.title)}" time="0"`;
    if (c.result.kind !== 'replayed')
      return `${head}><skipped message="${xml(`${c.result.kind}: ${c.result.reason}`)}"/></testcase>`;
    if (c.result.meets) return `${head}></testcase>`;
    const message = `recorded ${describeExpected(c.expected)}, now ${describeObserved(c.result.observed)}: ${c.result.outcome} (--expect ${r.expect})`;
    return `${head}><failure message="${xml(message)}">${xml(c.result.said, true)}</failure></testcase>`;
  });
  const failures = r.cases.filter(failing).length;
  const skipped = r.cases.filter((c) => c.result.kind !== 'replayed').length;
  const counts = `tests="${r.cases.length}" failures="${failures}" skipped="${skipped}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="toolscope-replay" ${counts}>`,
    `  <testsuite name="toolscope-replay" ${counts} errors="0">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

const RULES: Record<string, string> = {
  fixed: 'A recorded failure no longer happens',
  changed: 'A recorded failure now fails otherwise (another code or other paths)',
  'new-failure': 'A recorded success now fails',
  same: 'A recorded failure still happens',
};

export function sarif(r: ReplayReport): string {
  const results = r.cases.filter(failing).map((c) => {
    const outcome = outcomeOf(c);
    return {
      ruleId: outcome.replaceAll(' ', '-'),
      level: 'error',
      message: {
        text: `${c.tool}: recorded ${describeExpected(c.expected)}, now ${now(c)} (${outcome}; --expect ${r.expect})`,
      },
      locations: [
        {
          logicalLocations: [
            { name: c.tool, fullyQualifiedName: `tool:${c.tool}`, kind: 'function' },
          ],
        },
      ],
      partialFingerprints: {
        'toolscopeReplay/v1': createHash('sha256')
          .update(`${c.tool}\u0000${c.id}`)
          .digest('hex')
          .slice(0, 32),
      },
      properties: { tool: c.tool, case: c.id, file: c.file },
    };
  });
  const ids = [...new Set(results.map((x) => x.ruleId))].sort();
  const log = {
    $schema:
      'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'toolscope-replay',
            version: COLLECTOR_VERSION,
            rules: ids.map((id) => ({ id, name: id, shortDescription: { text: RULES[id] ?? id } })),
          },
        },
        results: results.map((x) => ({ ...x, ruleIndex: ids.indexOf(x.ruleId) })),
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}
