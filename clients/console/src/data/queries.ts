// Reads the screens share: paged lists over the API's cursors, lookups of names by id, and the
// finds the API has no endpoint for yet (an event by id, a device by its deviceId, an execution).
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import type { Customer, Device, EventRecord, Product, WaybillClient } from "@waybill/sdk";
import { useApi } from "../session.js";

export type LoggedEvent = EventRecord & { [field: string]: unknown };

interface Page<T> {
  data: T[];
  nextCursor?: string | null;
}

/** A list read page by page ("Load more"), all loaded rows flat. */
export function usePaged<T>(key: unknown[], fetchPage: (cursor: string | undefined) => Promise<Page<T>>, options: { refetchInterval?: number } = {}) {
  const query = useInfiniteQuery({
    queryKey: key,
    queryFn: ({ pageParam }) => fetchPage(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    refetchInterval: options.refetchInterval,
  });
  return {
    query,
    rows: query.data?.pages.flatMap((p) => p.data),
    hasMore: query.hasNextPage,
    loadingMore: query.isFetchingNextPage,
    more: () => void query.fetchNextPage(),
  };
}

/** Every page of a list, up to `max` rows (for name lookups and client-side finds). */
export async function readAll<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>, max = 500): Promise<T[]> {
  const rows: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    rows.push(...page.data);
    cursor = page.nextCursor ?? undefined;
  } while (cursor && rows.length < max);
  return rows;
}

export const productsPage = (api: WaybillClient) => async (cursor?: string) =>
  (await api.GET("/products", { params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } } })).data!;
export const customersPage = (api: WaybillClient) => async (cursor?: string) =>
  (await api.GET("/customers", { params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } } })).data!;
export const devicesPage = (api: WaybillClient) => async (cursor?: string) =>
  (await api.GET("/devices", { params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } } })).data!;

/** Products by id (SKU and name wherever a line shows a product). */
export function useProducts() {
  const api = useApi();
  return useQuery({
    queryKey: ["products", "all"],
    queryFn: async () => new Map((await readAll<Product>(productsPage(api))).map((p) => [p.id, p])),
    staleTime: 30_000,
  });
}

export function useCustomers() {
  const api = useApi();
  return useQuery({
    queryKey: ["customers", "all"],
    queryFn: async () => new Map((await readAll<Customer>(customersPage(api))).map((c) => [c.id, c])),
    staleTime: 30_000,
  });
}

export function useStock() {
  const api = useApi();
  return useQuery({
    queryKey: ["stock"],
    queryFn: () => readAll(async (cursor) => (await api.GET("/inventory", { params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } } })).data!, 2000),
  });
}

export function useDevices() {
  const api = useApi();
  return useQuery({ queryKey: ["devices"], queryFn: () => readAll<Device>(devicesPage(api)), refetchInterval: 10_000 });
}

export function eventsPage(api: WaybillClient, kind?: string) {
  return async (cursor?: string) =>
    (await api.GET("/events", { params: { query: { limit: 100, ...(kind ? { kind: kind as never } : {}), ...(cursor ? { cursor } : {}) } } }))
      .data! as unknown as Page<LoggedEvent>;
}

/**
 * One event by id. The API has no GET /events/{id} yet: read the log newest first until the id
 * shows, stopping once the pages are older than it (ids sort by time) or after 20 pages.
 */
export async function findEvent(api: WaybillClient, id: string): Promise<LoggedEvent | undefined> {
  const read = eventsPage(api);
  let cursor: string | undefined;
  for (let pages = 0; pages < 20; pages++) {
    const page = await read(cursor);
    const found = page.data.find((e) => e.id === id);
    if (found) return found;
    const oldest = page.data.at(-1)?.id;
    if (!page.nextCursor || (oldest && oldest < id)) return undefined;
    cursor = page.nextCursor;
  }
  return undefined;
}

/** The entity ids an event names (order, shipment, product, customer, device, hook). */
export function entityIds(event: LoggedEvent): string[] {
  return ["orderId", "shipmentId", "productId", "customerId", "deviceId", "hookId"].map((f) => event[f]).filter((v): v is string => typeof v === "string");
}

/** Where in the console an id is shown. */
export function pathOf(id: string): string | undefined {
  const prefix = id.split("_")[0];
  const route: Record<string, string> = {
    ord: "/orders/",
    evt: "/events/",
    hook: "/webhooks/",
    dev: "/devices/",
    prd: "/products/",
    cus: "/customers/",
  };
  return route[prefix] ? `${route[prefix]}${encodeURIComponent(id)}` : undefined;
}
