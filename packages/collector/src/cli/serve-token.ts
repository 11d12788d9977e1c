// Where `serve` takes its bearer token from (--token, a file, or the environment), and the check that a collector
// whose ports are published beyond loopback has one. A token on the command line is readable by every local user
// in the process list (/proc/<pid>/cmdline): a file or the environment keeps it to the process's owner.
import { readFileSync } from 'node:fs';

export type TokenSource = { ok: true; token: string | undefined } | { ok: false; message: string };

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\])$/i;

/** The token's file, read: surrounding whitespace (the editor's last newline) is not part of the token. */
function readTokenFile(path: string, named: string): TokenSource {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return { ok: false, message: `${named}: cannot read ${path} (${code})` };
  }
  const token = text.trim();
  if (!token) return { ok: false, message: `${named}: ${path} is empty` };
  return { ok: true, token };
}

/**
 * The token, from the first of: --token, --token-file, TOOLSCOPE_TOKEN_FILE, TOOLSCOPE_TOKEN (empty means
 * unset, as `${TOOLSCOPE_TOKEN:-}` in compose gives). Two of them at once is a mistake, not a precedence.
 */
export function resolveToken(
  flags: { token?: string | undefined; 'token-file'?: string | undefined },
  env: NodeJS.ProcessEnv,
): TokenSource {
  const given = [
    flags.token !== undefined && '--token',
    flags['token-file'] !== undefined && '--token-file',
    !!env.TOOLSCOPE_TOKEN_FILE && 'TOOLSCOPE_TOKEN_FILE',
    !!env.TOOLSCOPE_TOKEN && 'TOOLSCOPE_TOKEN',
  ].filter((g): g is string => typeof g === 'string');
  if (given.length > 1)
    return { ok: false, message: `${given.join(' and ')}: give the token one way only` };
  if (flags.token !== undefined) return { ok: true, token: flags.token };
  if (flags['token-file'] !== undefined) return readTokenFile(flags['token-file'], '--token-file');
  if (env.TOOLSCOPE_TOKEN_FILE)
    return readTokenFile(env.TOOLSCOPE_TOKEN_FILE, 'TOOLSCOPE_TOKEN_FILE');
  return { ok: true, token: env.TOOLSCOPE_TOKEN || undefined };
}

/** The token of `serve`, checked against where its ports are published. */
export function serveToken(
  token: unknown,
  tokenFile: unknown,
  env: NodeJS.ProcessEnv,
): TokenSource {
  const source = resolveToken(
    {
      token: typeof token === 'string' ? token : undefined,
      'token-file': typeof tokenFile === 'string' ? tokenFile : undefined,
    },
    env,
  );
  const published = source.ok ? publishProblem(env, source.token) : undefined;
  return published ? { ok: false, message: published } : source;
}

/**
 * TOOLSCOPE_PUBLISH_ADDRESS is where a container's ports are published (docker-compose.yml sets it): inside the
 * container the collector listens on every interface of the container's network, so --host says nothing about
 * who can reach it. Published beyond loopback, it must have a token.
 */
export function publishProblem(
  env: NodeJS.ProcessEnv,
  token: string | undefined,
): string | undefined {
  const address = env.TOOLSCOPE_PUBLISH_ADDRESS;
  if (!address || LOOPBACK.test(address) || token) return undefined;
  return `TOOLSCOPE_PUBLISH_ADDRESS=${address} publishes the collector beyond loopback: set a token (TOOLSCOPE_TOKEN or TOOLSCOPE_TOKEN_FILE), or publish on 127.0.0.1`;
}
