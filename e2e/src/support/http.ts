/** A tiny HTTP client over fetch that keeps cookies like a browser does (one jar per client). */

export class CookieJar {
  private readonly cookies = new Map<string, string>();

  /** Takes every `set-cookie` of a response: stores new values, forgets expired ones. */
  store(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair, ...attributes] = header.split(';').map((part) => part.trim());
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const expired = attributes.some((attribute) => {
        const [key, attrValue = ''] = attribute.split('=');
        if (key.toLowerCase() === 'max-age') return Number(attrValue) <= 0;
        if (key.toLowerCase() === 'expires') return Date.parse(attrValue) <= Date.now();
        return false;
      });
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }

  header(): string | undefined {
    if (this.cookies.size === 0) return undefined;
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  clear(): void {
    this.cookies.clear();
  }
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  contentType: string;
  text: string;
  /** The JSON body (problem+json included), or undefined when there is none. */
  body: T;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
}

/** Problem details (RFC 9457) as the services answer errors. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  code: string;
  requestId?: string;
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly jar: CookieJar = new CookieJar(),
  ) {}

  async request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { accept: 'application/json', ...(options.headers ?? {}) };
    const cookie = this.jar.header();
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await fetch(new URL(path, this.baseUrl), { method, headers, body, signal: AbortSignal.timeout(20_000) });
    this.jar.store(response);
    const text = await response.text();
    const contentType = response.headers.get('content-type') ?? '';
    let parsed: unknown;
    if (text && /json/.test(contentType)) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, contentType, text, body: parsed as T };
  }

  get<T = unknown>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }

  post<T = unknown>(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request<T>('POST', path, { ...options, body });
  }

  put<T = unknown>(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request<T>('PUT', path, { ...options, body });
  }

  patch<T = unknown>(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request<T>('PATCH', path, { ...options, body });
  }

  delete<T = unknown>(path: string, options?: RequestOptions) {
    return this.request<T>('DELETE', path, options);
  }
}

/** Short description of a response for assertion messages. */
export function show(response: ApiResponse): string {
  return `${response.status} ${response.contentType} ${response.text.slice(0, 500)}`;
}
