/**
 * The one registry of error codes the trading gateway answers with (trading-gateway.md: Errors).
 * Nothing else invents a code: routes and providers throw `GatewayError` built from this table, and
 * the body leaves as the spec's bare ApiError `{code, message, details?}` (no envelope).
 */
export const gatewayErrors = {
  INVALID_REQUEST: { status: 400, retryable: false },
  INVALID_VALUE: { status: 400, retryable: false },
  VALIDATION_ERROR: { status: 400, retryable: false },
  UNAUTHORIZED: { status: 401, retryable: false },
  ORDER_NOT_FOUND: { status: 404, retryable: false },
  POSITION_NOT_FOUND: { status: 404, retryable: false },
  SYMBOL_NOT_FOUND: { status: 404, retryable: false },
  OCO_GROUP_NOT_FOUND: { status: 404, retryable: false },
  ORDER_NOT_MODIFIABLE: { status: 409, retryable: false },
  RESET_COOLDOWN: { status: 409, retryable: false },
  ORDER_REJECTED: { status: 422, retryable: false },
  RATE_LIMITED: { status: 429, retryable: true },
  INTERNAL_ERROR: { status: 500, retryable: false },
  UNSUPPORTED_OPERATION: { status: 501, retryable: false },
  PROVIDER_ERROR: { status: 502, retryable: true },
  SHUTTING_DOWN: { status: 503, retryable: false },
  PROVIDER_UNAVAILABLE: { status: 503, retryable: true },
} as const;

export type GatewayErrorCode = keyof typeof gatewayErrors;
export const GATEWAY_ERROR_CODES = Object.keys(gatewayErrors) as GatewayErrorCode[];

/** The codes an error event on the WebSocket carries (WsErrorCode). */
export const WS_ERROR_CODES = [
  'INVALID_MESSAGE',
  'INTERNAL_ERROR',
  'POSITION_UNPROTECTED',
  'LIQUIDATION',
  'OCO_DOUBLE_EXIT',
] as const;
export type WsErrorCode = (typeof WS_ERROR_CODES)[number];

export interface ApiErrorBody {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export const isGatewayErrorCode = (code: string): code is GatewayErrorCode => code in gatewayErrors;

export class GatewayError extends Error {
  readonly code: GatewayErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: GatewayErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'GatewayError';
    this.code = code;
    this.status = gatewayErrors[code].status;
    this.details = details;
  }

  toBody(): ApiErrorBody {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}
