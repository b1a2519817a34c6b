// The Content-Security-Policy of the pages the edge serves (the console, the API reference):
// everything from this origin only, nothing inline, no framing. Each page adds what it needs.

const SAME_ORIGIN_ONLY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  // data: images: icons the API reference (Swagger UI) draws.
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
];

export function pagePolicy(extra: { formAction: "'self'" | "'none'"; more?: string[] }): string {
  return [...SAME_ORIGIN_ONLY, `form-action ${extra.formAction}`, ...(extra.more ?? [])].join("; ");
}
