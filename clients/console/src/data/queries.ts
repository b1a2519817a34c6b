// Reads the screens share: paged lists over the API's cursors, lookups of names by id, and the
// finds the API has no endpoint for yet (an event by id, a device by its deviceId, an execution).
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { type Customer, type Device, type EventRecord, type Product, WaybillApiError, type WaybillClient } from "@waybill/sdk";
import { useApi } from "../session.js";

export type LoggedEvent = EventRecord & { [field: string]: unknown };

export interface Page<T> {
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
    // The same array until the pages change, so that effects depending on it run only then.
    rows: useMemo(() => query.data?.pages.flatMap((p) => p.data), [query.data]),
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

/** What GET /v1/events filters by on the server (see docs/overview.md, "Reading the event log"). */
export interface EventsFilter {
  kind?: string;
  transactionId?: string;
  /** An order, shipment, product, customer or hook id the event names. */
  entityId?: string;
  /** A device, by the id it connects with. */
  deviceId?: string;
}

export function eventsPage(api: WaybillClient, filter: EventsFilter = {}) {
  const { kind, ...rest } = filter;
  const query = { ...rest, ...(kind ? { kind: kind as never } : {}) };
  return async (cursor?: string) =>
    (await api.GET("/events", { params: { query: { limit: 100, ...query, ...(cursor ? { cursor } : {}) } } })).data! as unknown as Page<LoggedEvent>;
}

/** One event by id (GET /v1/events/{id}); undefined when the tenant's log has no such event. */
export async function findEvent(api: WaybillClient, id: string): Promise<LoggedEvent | undefined> {
  try {
    return (await api.GET("/events/{id}", { params: { path: { id } } })).data as LoggedEvent;
  } catch (error) {
    if (error instanceof WaybillApiError && error.code === "event_not_found") return undefined;
    throw error;
  }
}

/** Ids GET /v1/events?entityId= takes: those an event's payload names an entity by. */
export const ENTITY_ID = /^(ord|shp|prd|cus|hook)_[0-9a-hjkmnp-tv-z]{26}$/;
/** The ids devices connect with (and their events carry). */
export const DEVICE_ID = /^[A-Za-z0-9_-]{1,64}$/;

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
