// Every refusal of the API (an RFC 9457 problem) and every failure to reach it comes back as one
// of these, so callers branch on `code`, never on message text.

export interface ProblemFieldError {
  path: string;
  message: string;
}

export interface Problem {
  type?: string;
  title?: string;
  status: number;
  detail?: string;
  code?: string;
  errors?: ProblemFieldError[];
}

/** The API answered with a problem (4xx or 5xx). */
export class WaybillApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly errors: ProblemFieldError[];
  readonly requestId: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(problem: Problem, requestId?: string, retryAfterSeconds?: number) {
    super(problem.detail || problem.title || `HTTP ${problem.status}`);
    this.name = "WaybillApiError";
    this.status = problem.status;
    this.code = problem.code ?? `http_${problem.status}`;
    this.title = problem.title ?? "";
    this.detail = problem.detail ?? "";
    this.errors = problem.errors ?? [];
    this.requestId = requestId;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The API could not be reached (refused, DNS, TLS, aborted by a timeout). */
export class WaybillConnectionError extends Error {
  readonly code = "connection_failed";
  readonly url: string;

  constructor(url: string, cause: unknown) {
    super(`could not reach ${url}: ${cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause)}`, {
      cause,
    });
    this.name = "WaybillConnectionError";
    this.url = url;
  }
}

/** Turns an unsuccessful response into a WaybillApiError, whatever its body. */
export async function problemFromResponse(response: Response): Promise<WaybillApiError> {
  const text = await response.text().catch(() => "");
  let problem: Problem = { status: response.status, title: response.statusText };
  try {
    const body = JSON.parse(text) as Partial<Problem>;
    if (body && typeof body === "object") problem = { ...problem, ...body, status: response.status };
  } catch {
    if (text) problem.detail = text.slice(0, 500);
  }
  const retryAfter = Number(response.headers.get("retry-after"));
  return new WaybillApiError(
    problem,
    response.headers.get("x-request-id") ?? undefined,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  );
}
