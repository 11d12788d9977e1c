// The `toolscope` command line run in this process, its output kept: the exit code, stdout and stderr.
import { runCli } from '@toolscope/collector';

export async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
    env: {},
    onSignal: () => {},
  });
  return { code, out, err };
}
