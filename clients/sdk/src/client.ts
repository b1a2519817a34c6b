// The typed client: openapi-fetch over the generated `paths`, with the credential attached to
// every request and every refusal thrown as a WaybillApiError.
import createFetchClient, { type Client, type Middleware } from "openapi-fetch";
import { WaybillConnectionError, problemFromResponse } from "./errors.js";
import type { paths } from "./schema.js";

export const DEFAULT_BASE_URL = "http://127.0.0.1:8080";

export interface WaybillClientOptions {
  /** Where the edge listens, without `/v1` (default http://127.0.0.1:8080). */
  baseUrl?: string;
  /** An API token (`api-…`, `cli-…`, …) or a session JWT; a function is asked on every request. */
  token?: string | (() => string | undefined);
  /** A fetch of your own (tests, proxies); the global fetch by default. */
  fetch?: typeof globalThis.fetch;
  /** Extra headers on every request (e.g. User-Agent). */
  headers?: Record<string, string>;
}

export type WaybillClient = Client<paths, "application/json"> & { readonly baseUrl: string };

export function apiRoot(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "")}/v1`;
}

export function credentialOf(token: WaybillClientOptions["token"]): string | undefined {
  return typeof token === "function" ? token() : token;
}

export function createWaybillClient(options: WaybillClientOptions = {}): WaybillClient {
  const baseUrl = options.baseUrl ?? DEFAULT_BASE_URL;
  const root = apiRoot(baseUrl);
  const baseFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const fetchOrExplain: typeof globalThis.fetch = async (input, init) => {
    try {
      return await baseFetch(input, init);
    } catch (error) {
      throw new WaybillConnectionError(root, error);
    }
  };
  const client = createFetchClient<paths, "application/json">({ baseUrl: root, fetch: fetchOrExplain, headers: options.headers });
  const auth: Middleware = {
    onRequest({ request }) {
      const credential = credentialOf(options.token);
      if (credential && !request.headers.has("authorization")) request.headers.set("authorization", `Bearer ${credential}`);
      return request;
    },
    async onResponse({ response, options: callOptions }) {
      if (!response.ok) throw await problemFromResponse(response);
      if ((callOptions.parseAs ?? "json") === "json") return withoutUnparseableBody(response);
      return response;
    },
  };
  client.use(auth);
  return Object.assign(client, { baseUrl });
}

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * A success whose body is not JSON (a 202 "Accepted" in text/plain from an older server) reaches
 * the caller as no data, like a 204, instead of a JSON parse error. An empty JSON body is already
 * no data (openapi-fetch parses only a non-empty text).
 */
async function withoutUnparseableBody(response: Response): Promise<Response> {
  if (response.status === 204 || response.body === null) return response;
  if (JSON_MEDIA_TYPE.test(response.headers.get("content-type") ?? "")) return response;
  await response.body.cancel().catch(() => undefined);
  const headers = new Headers(response.headers);
  headers.set("content-length", "0");
  headers.delete("transfer-encoding");
  return new Response(null, { status: response.status, statusText: response.statusText, headers });
}

/**
 * The data of a successful call. Refusals never reach here (the client throws them), so an
 * absent body means a 204 or a success answered without JSON.
 */
export async function data<T>(call: Promise<{ data?: T; error?: unknown }>): Promise<T> {
  const result = await call;
  return result.data as T;
}
