import { runMain } from "@waybill/platform/run-main.js";
import { loadIdentityConfig } from "./config.js";
import { startIdentity } from "./service.js";

runMain("identity", () => loadIdentityConfig(), startIdentity);
