// The tool page's clients: its calls per MCP client name and version (calls, failed, error rate), each a link to
// the tool list of that client's calls. Client names and versions come from agents: rendered as text only.
import { formatCount, type ToolDetailResponse } from '@toolscope/collector/schemas';
import { href } from '../route';
import { formatPercent } from '../time';
import { Code, clientLabel, counted, Head } from '../ui';

/** Who calls the tool: its calls per MCP client and version, each a link to that client's tool list. */
export function Clients({
  clients,
  calls,
}: {
  clients: ToolDetailResponse['clients'];
  calls: number;
}) {
  if (clients.length === 0) return <p class="state">No calls in this range.</p>;
  const listed = clients.reduce((n, c) => n + c.calls, 0);
  return (
    <>
      <table aria-label="clients">
        <Head cols={['Client', 'Version', 'Calls', 'Failed', 'Rate']} />
        <tbody>
          {clients.map((c) => (
            <tr
              key={`${c.name ?? ''}|${c.version ?? ''}`}
              class={c.errors > 0 ? 'bad-row' : ''}
              data-client={c.name ?? ''}
            >
              <td>
                {c.name === null ? (
                  <span class="state" title="calls whose span named no MCP client">
                    {clientLabel(null)}
                  </span>
                ) : (
                  <a href={href.overview({ client: c.name })} title={`tools called by ${c.name}`}>
                    {c.name}
                  </a>
                )}
              </td>
              <td>
                {c.name !== null && c.version !== null ? (
                  <a
                    href={href.overview({ client: c.name, clientVersion: c.version })}
                    title={`tools called by ${clientLabel(c.name, c.version)}`}
                  >
                    {c.version}
                  </a>
                ) : (
                  (c.version ?? '–')
                )}
              </td>
              <td class="num">{formatCount(c.calls)}</td>
              <td class="num">
                {c.errors}
                {c.topCode !== null && (
                  <>
                    {' '}
                    <span title="its most frequent failure">
                      <Code code={c.topCode} />
                    </span>
                  </>
                )}
              </td>
              <td class={`num ${c.errorRate > 0 ? 'bad' : ''}`}>{formatPercent(c.errorRate)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {listed < calls && (
        <p class="state">{counted(calls - listed, 'call')} of less busy clients not listed.</p>
      )}
    </>
  );
}
