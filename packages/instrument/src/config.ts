// Environment configuration of the instrumentation (docs/defining-tools.md), parsed once with Zod; bad values are reported, not thrown.
import { diag } from '@opentelemetry/api';
import { z } from 'zod';

export const ENV_CAPTURE_CONTENT = 'TOOLSCOPE_CAPTURE_CONTENT' as const;
export const ENV_HASH_KEY = 'TOOLSCOPE_HASH_KEY' as const;

const booleanFlag = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off', '']))
  .transform((v) => v === 'true' || v === '1' || v === 'yes' || v === 'on');

export const envConfigSchema = z.object({
  [ENV_CAPTURE_CONTENT]: booleanFlag.optional(),
  [ENV_HASH_KEY]: z.string().min(1).optional(),
});

export type EnvConfig = { captureContent: boolean; hashKey: string | undefined };

/** Reads the Toolscope variables from `env`; an invalid value is logged and treated as unset. */
export function readEnvConfig(env: NodeJS.ProcessEnv = process.env): EnvConfig {
  const raw = {
    [ENV_CAPTURE_CONTENT]: env[ENV_CAPTURE_CONTENT],
    [ENV_HASH_KEY]: env[ENV_HASH_KEY],
  };
  const parsed = envConfigSchema.safeParse(raw);
  if (parsed.success) {
    return {
      captureContent: parsed.data[ENV_CAPTURE_CONTENT] ?? false,
      hashKey: parsed.data[ENV_HASH_KEY],
    };
  }
  const names = parsed.error.issues.map((issue) => issue.path.join('.')).join(', ');
  diag.warn(`@toolscope/instrument: ignoring invalid environment variable(s): ${names}`);
  const hashKey = env[ENV_HASH_KEY];
  return { captureContent: false, hashKey: hashKey ? hashKey : undefined };
}
