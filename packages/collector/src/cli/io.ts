// What a CLI command may touch of the process, passed in so commands can be tested without one.
export type CliIo = {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  onSignal(signal: 'SIGINT' | 'SIGTERM', handler: () => void): void;
};

export const processIo: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  onSignal: (signal, handler) => {
    process.on(signal, handler);
  },
};
