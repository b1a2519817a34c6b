// The roles a user holds in a tenant: part of every session JWT, so identity (which signs) and
// the edge (which verifies and authorises) must agree on them.
export const ROLES = ["admin", "member"] as const;
export type Role = (typeof ROLES)[number];
