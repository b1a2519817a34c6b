// `npm run dead-letters -- …`: list and replay the messages a service's consumers gave up on (packages/platform/dead-letters-cli.ts).
import { runOperatorCommand } from "./operator-command.mjs";

await runOperatorCommand("packages/platform/dead-letters-cli.ts", "packages/platform/dist/dead-letters-cli.js");
