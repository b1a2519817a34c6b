// `npm run webhook-secrets -- reseal|verify`: webhook secrets re-sealed under the current key (services/dispatcher/secrets-cli.ts).
import { runOperatorCommand } from "./operator-command.mjs";

await runOperatorCommand("services/dispatcher/secrets-cli.ts", "services/dispatcher/dist/secrets-cli.js");
