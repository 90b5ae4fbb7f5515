/**
 * The one error type the SDK throws for a refused call: the protocol's ApiError code, the HTTP
 * status and the details, so that strategies branch on `code` (docs/protocol.md, Errors).
 */
export class HindsightError extends Error {
  override readonly name = 'HindsightError';

  constructor(
    readonly code: string,
    readonly status: number | undefined,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(`${code}: ${message}`);
  }
}

/** A problem with the strategy itself (its parameters, its definition): reported before it runs. */
export class StrategyDefinitionError extends Error {
  override readonly name = 'StrategyDefinitionError';
}
