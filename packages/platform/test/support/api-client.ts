import assert from 'node:assert/strict';
import { type Document, OpenAPIBackend } from 'openapi-backend';

/**
 * HTTP client for tests. Every JSON response to a documented operation is checked against the
 * server's own openapi.json by openapi-backend, so the whole suite is a contract test; every
 * (operation, status) seen is recorded so a file can assert it reached every status the spec lists.
 */
export interface Credentials {
  key?: string;
  session?: string;
}

export interface RequestOptions extends Credentials {
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  query?: Record<string, string | string[]>;
}

// biome-ignore lint/suspicious/noExplicitAny: tests read response bodies loosely; the contract check types them.
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export class ApiClient {
  private contract: OpenAPIBackend | undefined;
  readonly observed = new Map<string, Set<number>>();
  validatedResponses = 0;

  constructor(readonly baseUrl: string) {}

  async loadContract(): Promise<void> {
    const response = await fetch(`${this.baseUrl}/v1/openapi.json`);
    const definition = (await response.json()) as Document;
    const contract = new OpenAPIBackend({
      definition,
      // quick skips openapi-backend's own document check, which knows only OpenAPI 3.0; the 3.1
      // document is validated by its own test. strict makes any other load problem fail loudly.
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
  put = (path: string, options?: RequestOptions) => this.request('PUT', path, options);
  patch = (path: string, options?: RequestOptions) => this.request('PATCH', path, options);
  delete = (path: string, options?: RequestOptions) => this.request('DELETE', path, options);

  async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const url = new URL(path, this.baseUrl);
    for (const [k, v] of Object.entries(options.query ?? {})) {
      for (const value of Array.isArray(v) ? v : [v]) url.searchParams.append(k, value);
    }
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers['x-api-key'] = options.key;
    if (options.session) headers.authorization = `Bearer ${options.session}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(url, { method, headers, ...(body !== undefined && { body }) });
    const text = await response.text();
    const isJson = response.headers.get('content-type')?.includes('application/json') ?? false;
    const parsed = isJson && text !== '' ? JSON.parse(text) : text;
    this.check(method, url, headers, response.status, parsed, isJson);
    return { status: response.status, headers: response.headers, body: parsed, text };
  }

  private check(
    method: string,
    url: URL,
    headers: Record<string, string>,
    status: number,
    body: unknown,
    isJson: boolean,
  ) {
    if (isJson && status >= 400) {
      assert.ok(
        body && typeof body === 'object' && 'error' in body && !('data' in body),
        `${method} ${url.pathname} ${status}: error responses carry only \`error\`: ${JSON.stringify(body)}`,
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
      return; // undocumented paths: the web app and the web-app sign-in
    }
    if (!operation) return;
    const name = `${method} ${operation.path}`;
    if (!this.observed.has(name)) this.observed.set(name, new Set());
    this.observed.get(name)?.add(status);
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

  /** Asserts every status the spec lists for an operation was observed by this client. */
  assertStatusesReached(operation: string, statuses: number[]): void {
    const seen = this.observed.get(operation) ?? new Set<number>();
    const missing = statuses.filter((s) => !seen.has(s));
    assert.deepEqual(missing, [], `${operation}: statuses never produced by a test: ${missing.join(', ')}`);
  }
}
