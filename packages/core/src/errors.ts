/**
 * The one registry of error codes the management API can answer with (spec: Errors).
 * Nothing else invents a code: routes throw `ApiError` built from this table.
 */
export const managementErrors = {
  BAD_REQUEST: { status: 400, retryable: false },
  UNAUTHORIZED: { status: 401, retryable: false },
  FORBIDDEN: { status: 403, retryable: false },
  QUOTA_EXCEEDED: { status: 403, retryable: false },
  NOT_FOUND: { status: 404, retryable: false },
  CONFLICT: { status: 409, retryable: false },
  IMAGE_EVICTED: { status: 410, retryable: false },
  INTERNAL_ERROR: { status: 500, retryable: false },
  SERVICE_UNAVAILABLE: { status: 503, retryable: true },
} as const;

export type ManagementErrorCode = keyof typeof managementErrors;

export class ApiError extends Error {
  readonly code: ManagementErrorCode;
  readonly status: number;
  readonly details: string | undefined;

  constructor(code: ManagementErrorCode, message: string, details?: string) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = managementErrors[code].status;
    this.details = details;
  }

  toBody(): { error: { code: string; message: string; details?: string } } {
    const error: { code: string; message: string; details?: string } = {
      code: this.code,
      message: this.message,
    };
    if (this.details !== undefined) error.details = this.details;
    return { error };
  }
}

export const badRequest = (message: string, details?: string) =>
  new ApiError('BAD_REQUEST', message, details);
export const unauthorized = (message = 'A valid API key (X-API-Key) or bearer token is required.') =>
  new ApiError('UNAUTHORIZED', message);
export const forbidden = (what: string) => new ApiError('FORBIDDEN', `${what} belongs to another account.`);
export const notFound = (what: string) => new ApiError('NOT_FOUND', `${what} was not found.`);
export const conflict = (message: string) => new ApiError('CONFLICT', message);
