// `npm run admin -- …`: tenants, tokens and passwords in the identity store (services/identity/admin-cli.ts).
import { runOperatorCommand } from "./operator-command.mjs";

await runOperatorCommand("services/identity/admin-cli.ts", "services/identity/dist/admin-cli.js");
