/** The server asks for the token: the page signs in, then starts again. */
export class Unauthorized extends Error {
  constructor() {
    super('sign in to see this');
  }
}

/** A refusal of the API, with its code and sentence (and the problems, for an invalid body). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

interface ErrorBody {
  readonly error?: { readonly code?: string; readonly message?: string; readonly problems?: readonly string[] };
}

async function answer<T>(response: Response): Promise<T> {
  if (response.status === 401) throw new Unauthorized();
  const body = (await response.json().catch(() => null)) as unknown;
  if (response.ok) return body as T;
  const error = (body as ErrorBody | null)?.error;
  const message = error?.problems?.join('\n') ?? error?.message ?? `the server answered ${response.status}`;
  throw new ApiError(response.status, error?.code ?? 'http_error', message);
}

/** GET a path of the API, as JSON; the browser sends the sign-in cookie itself. */
export async function getJson<T>(path: string): Promise<T> {
  return answer<T>(await fetch(path, { headers: { accept: 'application/json' } }));
}

/** POST JSON to a path of the API. X-Tierflow-Request marks it as the page's own, should a proxy strip the Origin the browser sent. */
export async function postJson<T>(path: string, body: unknown): Promise<T> {
  return answer<T>(await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', 'x-tierflow-request': '1' }, body: JSON.stringify(body) }));
}

/** A run's path in the API (or a page's), its id encoded: run ids come from people. */
export function runPath(rootId: string, rest = ''): string {
  return `/api/runs/${encodeURIComponent(rootId)}${rest}`;
}
