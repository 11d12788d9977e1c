// The tool page's Contracts section (docs/contracts.md): each contract the tool was served with, its versions,
// services, time span and weight; a readable diff between any two; and a deprecation banner with the sunset.
import {
  type ContractsResponse,
  contractDiffResponseSchema,
  contractsResponseSchema,
} from '@toolscope/collector/schemas';
import { useState } from 'preact/hooks';
import { query } from '../api';
import { useApi } from '../hooks';
import { Head, Load, Mono, short, Time, versionLabel } from '../ui';

type Contract = ContractsResponse['contracts'][number];
const MS_PER_DAY = 86_400_000;

export function DeprecationBanner({ contract }: { contract: Contract | undefined }) {
  const d = contract?.deprecated;
  if (!d) return null;
  const sunsetMs = d.sunset ? Date.parse(d.sunset) : Number.NaN;
  const days = Number.isFinite(sunsetMs) ? Math.ceil((sunsetMs - Date.now()) / MS_PER_DAY) : null;
  return (
    <p class="banner warn" role="note" data-testid="deprecation">
      <b>Deprecated</b>
      {d.replacedBy && (
        <>
          {' '}
          — use <b>{d.replacedBy}</b>
        </>
      )}
      {d.sunset && (
        <>
          {' '}
          — sunset {d.sunset}
          {days !== null && (days >= 0 ? ` (${days} days left)` : ` (passed ${-days} days ago)`)}
        </>
      )}
    </p>
  );
}

const shown = (v: unknown) => {
  if (v === null || v === undefined) return '–';
  const text = typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v);
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
};

function Diff({ name, from, to, tick }: { name: string; from: string; to: string; tick: number }) {
  const diff = useApi(
    `/api/tools/${encodeURIComponent(name)}/contracts/diff${query({ from, to })}`,
    contractDiffResponseSchema,
    tick,
  );
  return (
    <Load loaded={diff} what="the diff">
      {(d) =>
        d.changes.length === 0 ? (
          <p class="state">No difference in the schemas or the description.</p>
        ) : (
          <table aria-label="contract diff" class="diff">
            <Head cols={['Path', 'Change', 'Before', 'After']} />
            <tbody>
              {d.changes.map((c, i) => (
                <tr key={`${c.path}|${i}`} class={`change-${c.change}`}>
                  <td>
                    <Mono>{c.path}</Mono>
                  </td>
                  <td>{c.change}</td>
                  <td>
                    <Mono>{shown(c.before)}</Mono>
                  </td>
                  <td>
                    <Mono>{shown(c.after)}</Mono>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      }
    </Load>
  );
}

function ContractTable({
  contracts,
  name,
  tick,
}: {
  contracts: Contract[];
  name: string;
  tick: number;
}) {
  const reported = contracts.filter((c) => c.reported);
  const [from, setFrom] = useState<string | null>(null);
  const [to, setTo] = useState<string | null>(null);
  const a = from ?? reported.at(-2)?.schemaHash ?? null;
  const b = to ?? reported.at(-1)?.schemaHash ?? null;
  const pick = (value: string | null, set: (v: string) => void, label: string) => (
    <label>
      {label}{' '}
      <select value={value ?? ''} onChange={(e) => set(e.currentTarget.value)}>
        {reported.map((c) => (
          <option key={c.schemaHash} value={c.schemaHash}>
            {versionLabel(c.version)} · {short(c.schemaHash, 12)}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <>
      <table aria-label="contracts">
        <Head
          cols={[
            'Version',
            'Schema hash',
            'Services',
            'First seen',
            'Last seen',
            'Weight',
            'Calls',
          ]}
        />
        <tbody>
          {contracts.map((c) => (
            <tr key={c.schemaHash} data-hash={c.schemaHash}>
              <td>
                {versionLabel(c.version)}
                {c.deprecated && <span class="badge bad">deprecated</span>}
              </td>
              <td>
                <Mono title={c.schemaHash}>{short(c.schemaHash, 16)}</Mono>
              </td>
              <td>{c.services.join(', ') || '–'}</td>
              <td>
                <Time iso={c.firstSeen} />
              </td>
              <td>
                <Time iso={c.lastSeen} />
              </td>
              <td class="num" data-field="weight">
                {c.schemaTokens === null
                  ? 'not reported'
                  : `${c.schemaTokens} tokens · ${c.schemaBytes} B`}
              </td>
              <td class="num">{c.calls}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {reported.length >= 2 && a && b && (
        <div class="diff-pick">
          <p class="controls">
            {pick(a, setFrom, 'Compare')} {pick(b, setTo, 'with')}
          </p>
          <Diff name={name} from={a} to={b} tick={tick} />
        </div>
      )}
    </>
  );
}

export function Contracts({ name, tick }: { name: string; tick: number }) {
  const contracts = useApi(
    `/api/tools/${encodeURIComponent(name)}/contracts`,
    contractsResponseSchema,
    tick,
  );
  return (
    <Load loaded={contracts} what="the contracts">
      {(d) => (
        <>
          <DeprecationBanner contract={d.contracts.filter((c) => c.reported).at(-1)} />
          <ContractTable contracts={d.contracts} name={name} tick={tick} />
        </>
      )}
    </Load>
  );
}
