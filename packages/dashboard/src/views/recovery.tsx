// What agents did after failed calls (docs/recovery.md): per code and per envelope message on the tool page, and
// the share of failures agents recovered from on the overview.
import {
  recoveryResponseSchema,
  type ToolRecoveryResponse,
  toolRecoveryResponseSchema,
} from '@toolscope/collector/schemas';
import { query } from '../api';
import { useApi } from '../hooks';
import { formatPercent, rangeParams, type TimeRange } from '../time';
import { counted, Head, Load, Section } from '../ui';

type Row = ToolRecoveryResponse['byCode'][number];

const rate = (r: number | null) => (r === null ? '–' : formatPercent(r));

const COLS = [
  'Failures',
  'Repaired',
  'Failed again',
  'Repeated',
  'Switched',
  'Gave up',
  'Repair rate',
];

function Cells({ row }: { row: Omit<Row, 'code'> }) {
  const o = row.outcomes;
  return (
    <>
      <td class="num" data-field="failures">
        {row.failures}
      </td>
      <td class="num" data-field="repaired">
        {o.repaired}
      </td>
      <td class="num" data-field="failed_again">
        {o.failed_again}
      </td>
      <td class="num" data-field="repeated">
        {o.repeated}
      </td>
      <td class="num" data-field="switched">
        {o.switched}
      </td>
      <td class="num" data-field="gave_up">
        {o.gave_up}
      </td>
      <td class="num" data-field="repairRate">
        {rate(row.repairRate)}
      </td>
    </>
  );
}

function Tables({ r }: { r: ToolRecoveryResponse }) {
  if (r.failures === 0) return <p class="state">No failed calls in this range.</p>;
  return (
    <>
      <p data-testid="tool-recovery">
        After {counted(r.failures, 'failed call')} the agent repaired its input in{' '}
        <b>{rate(r.repairRate)}</b> and recovered (its next call of this tool succeeded) in{' '}
        <b>{rate(r.recoveredRate)}</b>.
        {r.limited && ` The newest ${r.failures} of ${r.failuresInRange} failures are counted.`}
      </p>
      <table aria-label="recovery per code">
        <Head cols={['Code', ...COLS]} />
        <tbody>
          {r.byCode.map((c) => (
            <tr key={c.code} data-code={c.code}>
              <th scope="row">{c.code}</th>
              <Cells row={c} />
            </tr>
          ))}
        </tbody>
      </table>
      {r.byMessage.length > 0 && (
        <table aria-label="recovery per message">
          <Head cols={['Code', 'Message the agent got', ...COLS]} />
          <tbody>
            {r.byMessage.map((m) => (
              <tr key={`${m.code}|${m.message}`} data-code={m.code}>
                <th scope="row">{m.code}</th>
                <td>{m.message}</td>
                <Cells row={m} />
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p class="muted">
        Next call in the same conversation (or trace): repaired, the same tool with another input
        that succeeded; failed again, another input that failed; repeated, the same input; switched,
        another tool; gave up, no further call.
      </p>
    </>
  );
}

/** The tool page's section: what followed its failed calls, per code and per message. */
export function ToolRecovery({
  name,
  range,
  tick,
}: {
  name: string;
  range: TimeRange;
  tick: number;
}) {
  const r = useApi(
    `/api/tools/${encodeURIComponent(name)}/recovery${query(rangeParams(range))}`,
    toolRecoveryResponseSchema,
    tick,
  );
  return (
    <Section title="What agents did after failed calls">
      <Load loaded={r} what="recovery">
        {(data) => <Tables r={data} />}
      </Load>
    </Section>
  );
}

/** The overview's line: the share of the range's failures agents recovered from. */
export function RecoveryShare({ range, tick }: { range: TimeRange; tick: number }) {
  const r = useApi(`/api/recovery${query(rangeParams(range))}`, recoveryResponseSchema, tick);
  if (r.state !== 'ready' || r.data.failures === 0) return null;
  const d = r.data;
  return (
    <p class="recovery-share" data-testid="recovery-share">
      Agents recovered from <b>{rate(d.recoveredRate)}</b> of {counted(d.failures, 'failed call')}{' '}
      in this range (repaired {d.outcomes.repaired}, repeated {d.outcomes.repeated}, switched tools{' '}
      {d.outcomes.switched}, gave up {d.outcomes.gave_up}).
    </p>
  );
}
