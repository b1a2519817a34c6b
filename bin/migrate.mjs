// `npm run migrate -- [service…] [--status]`: applies every service's migrations and exits (services/launcher/migrate.ts).
import { runOperatorCommand } from "./operator-command.mjs";

await runOperatorCommand("services/launcher/migrate.ts", "services/launcher/dist/migrate.js");
