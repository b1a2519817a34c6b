// Global search: where a pasted id or a shortId leads. Ids open their page directly; an execution
// opens its webhook; a shipment its order; a token the token list; anything else is tried as an
// order's shortId, a device's id and a tracking number.
import type { Device, Order, Shipment, WaybillClient } from "@waybill/sdk";
import { devicesPage, pathOf, readAll } from "./queries.js";

export async function resolveSearch(api: WaybillClient, text: string): Promise<string | undefined> {
  const q = text.trim();
  if (!q) return undefined;
  const prefix = /^([a-z]+)_[0-9a-z]{26}$/.exec(q)?.[1];
  if (prefix === "tok") return `/tokens?id=${encodeURIComponent(q)}`;
  if (prefix === "shp") {
    const shipment = (await api.GET("/shipments/{id}", { params: { path: { id: q } } })).data!;
    return `/orders/${encodeURIComponent(shipment.orderId)}`;
  }
  if (prefix === "exe") {
    const hooks = (await api.GET("/hooks", { params: { query: { limit: 100 } } })).data!.data;
    for (const hook of hooks) {
      const executions = (await api.GET("/hooks/{id}/executions", { params: { path: { id: hook.id }, query: { limit: 100 } } })).data!.data;
      if (executions.some((e) => e.id === q)) return `/webhooks/${encodeURIComponent(hook.id)}?execution=${encodeURIComponent(q)}`;
    }
    return undefined;
  }
  if (prefix) return pathOf(q);
  const orders = await readAll<Order>(
    async (cursor) => (await api.GET("/orders", { params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } } })).data!,
    1000,
  );
  const order = orders.find((o) => o.shortId.toLowerCase() === q.toLowerCase());
  if (order) return `/orders/${encodeURIComponent(order.id)}`;
  const device = (await readAll<Device>(devicesPage(api))).find((d) => d.deviceId === q);
  if (device) return `/devices/${encodeURIComponent(device.deviceId)}`;
  const shipment = (
    await readAll<Shipment>(async (cursor) => (await api.GET("/shipments", { params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } } })).data!)
  ).find((s) => s.trackingNumber === q);
  if (shipment) return `/orders/${encodeURIComponent(shipment.orderId)}`;
  return undefined;
}
