// Lists in the API are pages ({ data, nextCursor }); the CLI follows the cursors until it has
// `limit` items or the list ends.
export const DEFAULT_LIST_LIMIT = 100;
const MAX_PAGE_SIZE = 100;

export async function collect<T>(
  limit: number,
  page: (query: { limit: number; cursor?: string }) => Promise<{ data: T[]; nextCursor?: string | null }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  while (items.length < limit) {
    const answer = await page({ limit: Math.min(MAX_PAGE_SIZE, limit - items.length), ...(cursor ? { cursor } : {}) });
    items.push(...answer.data);
    if (!answer.nextCursor || answer.data.length === 0) break;
    cursor = answer.nextCursor;
  }
  return items.slice(0, limit);
}
