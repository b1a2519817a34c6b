// What the orders functions need, passed in rather than imported, so tests can swap any part.
import type { Pool } from "@waybill/platform/db.js";
import type { Logger } from "@waybill/platform/logger.js";
import type { Topology } from "@waybill/platform/nats.js";
import type { InventoryPort } from "./inventory-port.js";
import type { OrderWriter } from "./order-insert.js";

/** Crash safety of a status change's stock effect (stock-intents.ts). */
export interface StockIntents {
  /** Records, committed before it returns, that `orderId`'s stock is about to change. */
  mark(tenantId: string, orderId: string): Promise<void>;
  /** Removes it, committed at once: the change ended with the stock as it was. */
  clear(tenantId: string, orderId: string): Promise<void>;
}

export interface OrdersDeps {
  pool: Pool;
  topology: Topology;
  inventory: InventoryPort;
  /** Stores new orders, several per statement when they come together. */
  orderWriter: OrderWriter;
  /** Where a status change records its stock effect before calling inventory (crash safety). */
  stockIntents: StockIntents;
  logger: Logger;
}
