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

/**
 * The error codes of the built-in image registry (`/v2/`, OCI Distribution spec: error codes). Its
 * bodies are the registry format `{errors: [{code, message, detail}]}`, which OCI clients (docker,
 * skopeo, podman) read, not the management envelope. `IMAGE_EVICTED` is ours: the version's image was
 * evicted for good (spec: Strategy version), so the repository is gone (410).
 */
export const registryErrors = {
  BLOB_UNKNOWN: { status: 404, message: 'blob unknown to registry' },
  BLOB_UPLOAD_INVALID: { status: 400, message: 'blob upload invalid' },
  BLOB_UPLOAD_UNKNOWN: { status: 404, message: 'blob upload unknown to registry' },
  DIGEST_INVALID: { status: 400, message: 'provided digest did not match uploaded content' },
  MANIFEST_BLOB_UNKNOWN: {
    status: 400,
    message: 'manifest references a blob or manifest unknown to the registry',
  },
  MANIFEST_INVALID: { status: 400, message: 'manifest invalid' },
  MANIFEST_UNKNOWN: { status: 404, message: 'manifest unknown to registry' },
  NAME_INVALID: { status: 400, message: 'invalid repository name' },
  NAME_UNKNOWN: { status: 404, message: 'repository name not known to registry' },
  SIZE_INVALID: { status: 400, message: 'provided length did not match content length' },
  UNAUTHORIZED: { status: 401, message: 'authentication required' },
  DENIED: { status: 403, message: 'requested access to the resource is denied' },
  UNSUPPORTED: { status: 405, message: 'the operation is unsupported' },
  IMAGE_EVICTED: { status: 410, message: 'the image was evicted for good' },
  UNKNOWN: { status: 500, message: 'unknown error' },
} as const;

export type RegistryErrorCode = keyof typeof registryErrors;

export class RegistryError extends Error {
  readonly code: RegistryErrorCode;
  readonly status: number;
  readonly detail: unknown;

  /** `status` overrides the code's usual one where the spec says so (416 for an out-of-order chunk, 413). */
  constructor(code: RegistryErrorCode, message: string, detail?: unknown, status?: number) {
    super(message);
    this.name = 'RegistryError';
    this.code = code;
    this.status = status ?? registryErrors[code].status;
    this.detail = detail;
  }

  toBody(): { errors: { code: string; message: string; detail?: unknown }[] } {
    return {
      errors: [
        { code: this.code, message: this.message, ...(this.detail !== undefined && { detail: this.detail }) },
      ],
    };
  }
}
