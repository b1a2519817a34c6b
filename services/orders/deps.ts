// What the orders functions need, passed in rather than imported, so tests can swap any part.
import type { Pool } from "../platform/db.js";
import type { Logger } from "../platform/logger.js";
import type { Topology } from "../platform/nats.js";
import type { InventoryPort } from "./inventory-port.js";

export interface OrdersDeps {
  pool: Pool;
  topology: Topology;
  inventory: InventoryPort;
  logger: Logger;
}
