// What the orders functions need, passed in rather than imported, so tests can swap any part.
import type { Pool } from "@waybill/platform/db.js";
import type { Logger } from "@waybill/platform/logger.js";
import type { Topology } from "@waybill/platform/nats.js";
import type { InventoryPort } from "./inventory-port.js";

export interface OrdersDeps {
  pool: Pool;
  topology: Topology;
  inventory: InventoryPort;
  logger: Logger;
}
