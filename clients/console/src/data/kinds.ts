// The event kinds a hook may subscribe to: the catalog's, without `webhook.test` (a test delivery
// goes to one hook on request, never by subscription) and any the API marks as not subscribable.
import { useQuery } from "@tanstack/react-query";
import { useApi } from "../session.js";

const NOT_SUBSCRIBABLE = new Set(["webhook.test"]);

export function subscribableKinds(catalog: { kind: string; subscribable?: boolean }[]): string[] {
  return catalog.filter((k) => k.subscribable !== false && !NOT_SUBSCRIBABLE.has(k.kind)).map((k) => k.kind);
}

export function useEventKinds() {
  const api = useApi();
  return useQuery({
    queryKey: ["event-kinds"],
    queryFn: async () => (await api.GET("/event-kinds")).data!.data as { kind: string; subscribable?: boolean }[],
    staleTime: Number.POSITIVE_INFINITY,
  });
}
