#!/usr/bin/env node
// The `waybill` command: runs the compiled client (built by `npm run build`, which `npm ci` runs).
import("../dist/main.js").catch((error) => {
  if (error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("dist/main.js")) {
    console.error("waybill: the client is not built; run `npm run build --workspace @waybill/cli` (npm ci does it).");
    process.exit(1);
  }
  throw error;
});
