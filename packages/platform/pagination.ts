// Cursor pagination over time-sortable ids, newest first: the cursor is the last id returned,
// opaque to clients (base64url) so that its form can change.
import { platformError } from "./errors.js";

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

/** The page size a gRPC request asked for (0 when unset), within 1..MAX_PAGE_LIMIT. */
export function pageLimit(requested: number): number {
  return Math.min(Math.max(requested || DEFAULT_PAGE_LIMIT, 1), MAX_PAGE_LIMIT);
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export function encodeCursor(lastId: string): string {
  return Buffer.from(lastId, "utf8").toString("base64url");
}

export function decodeCursor(cursor: string | undefined | null): string | null {
  if (cursor === undefined || cursor === null || cursor === "") return null;
  const id = Buffer.from(cursor, "base64url").toString("utf8");
  if (!/^[a-z]+_[0-9a-z]{26}$/.test(id)) throw platformError("invalid_cursor", "The cursor is not one this API returned.");
  return id;
}

/** Given up to `limit + 1` rows fetched newest first, returns the page and its next cursor. */
export function toPage<T extends { id: string }>(rows: T[], limit: number): Page<T> {
  const data = rows.slice(0, limit);
  return { data, nextCursor: rows.length > limit ? encodeCursor(data[data.length - 1].id) : null };
}
