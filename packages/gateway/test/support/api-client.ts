import assert from 'node:assert/strict';
import { type Document, OpenAPIBackend } from 'openapi-backend';

/**
 * HTTP client for the gateway tests (the platform tests' approach): every JSON response to a
 * documented operation is validated against the gateway's own /v1/openapi.json with openapi-backend,
 * error bodies must be the bare ApiError, and every (operation, status) seen is recorded so the
 * suite can assert it reached every status the spec lists.
 */
export interface RequestOptions {
  key?: string;
  bearer?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  query?: Record<string, string | string[]>;
}

// biome-ignore lint/suspicious/noExplicitAny: tests read bodies loosely; the contract check types them.
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** Statuses observed per operation, shared by every client of a test process. */
export const observedStatuses = new Map<string, Set<number>>();

export class ApiClient {
  private contract: OpenAPIBackend | undefined;
  validatedResponses = 0;

  constructor(
    readonly baseUrl: string,
    private readonly defaults: RequestOptions = {},
  ) {}

  async loadContract(): Promise<void> {
    const response = await fetch(`${this.baseUrl}/v1/openapi.json`);
    const definition = (await response.json()) as Document;
    const contract = new OpenAPIBackend({
      definition,
      quick: true,
      validate: true,
      strict: true,
      ajvOpts: { strict: false, validateFormats: false },
    });
    await contract.init();
    this.contract = contract;
  }

  get = (path: string, options?: RequestOptions) => this.request('GET', path, options);
  post = (path: string, options?: RequestOptions) => this.request('POST', path, options);
  patch = (path: string, options?: RequestOptions) => this.request('PATCH', path, options);
  delete = (path: string, options?: RequestOptions) => this.request('DELETE', path, options);

  async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const merged = { ...this.defaults, ...options };
    const url = new URL(path, this.baseUrl);
    for (const [k, v] of Object.entries(merged.query ?? {})) {
      for (const value of Array.isArray(v) ? v : [v]) url.searchParams.append(k, value);
    }
    const headers: Record<string, string> = { ...merged.headers };
    if (merged.key) headers['x-api-key'] = merged.key;
    if (merged.bearer) headers.authorization = `Bearer ${merged.bearer}`;
    let body: string | undefined = merged.rawBody;
    if (merged.body !== undefined) {
      body = JSON.stringify(merged.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(url, { method, headers, ...(body !== undefined && { body }) });
    const text = await response.text();
    const isJson = response.headers.get('content-type')?.includes('application/json') ?? false;
    const parsed = isJson && text !== '' ? JSON.parse(text) : text;
    this.check(method, url, headers, response.status, parsed, isJson);
    return { status: response.status, headers: response.headers, body: parsed, text };
  }

  /** Checks an answer that came another way (a `response` frame over the socket) like an HTTP one. */
  checkAnswer(method: string, path: string, status: number, body: unknown): void {
    this.check(method, new URL(path, this.baseUrl), {}, status, body, body !== undefined);
  }

  private check(
    method: string,
    url: URL,
    headers: Record<string, string>,
    status: number,
    body: unknown,
    isJson: boolean,
  ) {
    // /readyz answers 503 with its own shape (spec: Health probes); every other error is an ApiError.
    if (isJson && status >= 400 && url.pathname !== '/readyz') {
      assert.ok(
        body &&
          typeof body === 'object' &&
          typeof (body as { code?: unknown }).code === 'string' &&
          !('error' in body),
        `${method} ${url.pathname} ${status}: errors are the bare ApiError {code, message, details?}: ${JSON.stringify(body)}`,
      );
    }
    if (!this.contract) return;
    let operation: ReturnType<OpenAPIBackend['router']['matchOperation']>;
    try {
      operation = this.contract.router.matchOperation(
        { method, path: url.pathname, headers, query: Object.fromEntries(url.searchParams) },
        false,
      );
    } catch {
      return;
    }
    if (!operation) return;
    const name = `${method} ${operation.path}`;
    if (!observedStatuses.has(name)) observedStatuses.set(name, new Set());
    observedStatuses.get(name)?.add(status);
    assert.ok(
      operation.responses?.[String(status)],
      `${name} answered ${status}, a status openapi.json does not document for it`,
    );
    if (!isJson) return;
    const result = this.contract.validateResponse(body, operation, status);
    assert.ok(
      result.valid,
      `${name} ${status}: response does not match openapi.json: ${JSON.stringify(result.errors)}\n${JSON.stringify(body).slice(0, 500)}`,
    );
    this.validatedResponses += 1;
  }
}

/** Asserts every listed status of every listed operation was observed. */
export function assertStatusesReached(expected: Record<string, number[]>): void {
  const missing: string[] = [];
  for (const [operation, statuses] of Object.entries(expected)) {
    const seen = observedStatuses.get(operation) ?? new Set<number>();
    const absent = statuses.filter((s) => !seen.has(s));
    if (absent.length > 0) missing.push(`${operation}: ${absent.join(', ')}`);
  }
  assert.deepEqual(missing, [], `statuses never produced:\n${missing.join('\n')}`);
}
