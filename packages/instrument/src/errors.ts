// The one error class this package throws, and only for programmer mistakes found at definition time.

export const TOOLSCOPE_ERROR_CODES = {
  INVALID_DEFINITION: 'INVALID_DEFINITION',
  INVALID_OPTIONS: 'INVALID_OPTIONS',
} as const;
export type ToolscopeErrorCode = keyof typeof TOOLSCOPE_ERROR_CODES;

/** Thrown by `defineTool` and the setup helpers for a definition that cannot work; never by `.call`. */
export class ToolscopeError extends Error {
  override readonly name = 'ToolscopeError';
  readonly code: ToolscopeErrorCode;

  constructor(code: ToolscopeErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
