import { runMain } from "../platform/run-main.js";
import { loadIdentityConfig } from "./config.js";
import { startIdentity } from "./service.js";

runMain("identity", () => loadIdentityConfig(), startIdentity);
