// One colour per error code, the same in every chart and timeline, so a reader who learned that orange is
// INVALID_INPUT on the overview finds it orange in a conversation. The envelope's codes have fixed colours;
// any other code (a foreign dialect's error.type) gets one from a palette by a stable hash of its name.

const FIXED: Record<string, string> = {
  INVALID_INPUT: '#d97706',
  INVALID_OUTPUT: '#7c3aed',
  RETRYABLE: '#0891b2',
  REJECTED: '#be185d',
  FAILED: '#c2352b',
};

const PALETTE = ['#b45309', '#4d7c0f', '#9d174d', '#1d4ed8', '#6d28d9', '#0f766e', '#a16207'];

/** The colour of successful calls. */
export const OK_COLOR = '#94a3b8';

export function codeColor(code: string | null): string {
  if (code === null || code === '' || code === 'OK') return OK_COLOR;
  const fixed = FIXED[code];
  if (fixed) return fixed;
  let h = 0;
  for (let i = 0; i < code.length; i++) h = (h * 31 + code.charCodeAt(i)) >>> 0;
  return PALETTE[h % PALETTE.length] as string;
}
