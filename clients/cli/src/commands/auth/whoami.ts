// waybill whoami: which server and credential commands use, and whether the credential works.
import type { Command } from "commander";
import { action } from "../../context.js";
import { examples } from "../../help.js";
import { cell } from "../../output/printer.js";
import { describeCredential, verify } from "./credential.js";

export function registerWhoami(program: Command): void {
  examples(
    program
      .command("whoami")
      .description("Show which server and credential commands use, and check that the credential works")
      .action(
        action(async (context) => {
          const api = context.api();
          const identity = describeCredential(context.token!);
          const fromProfile = context.source.token === "profile" ? context.profile : undefined;
          if (fromProfile?.email) identity.user = fromProfile.email;
          if (fromProfile?.expiresAt) identity.expiresAt = fromProfile.expiresAt;
          const check = await context.wait("Checking the credential", verify(api));
          const value = {
            url: context.url,
            profile: fromProfile ? context.profileName : null,
            credentialFrom: context.source.token,
            ...identity,
            ...(fromProfile?.tokenId ? { tokenId: fromProfile.tokenId, tokenName: fromProfile.tokenName ?? null } : {}),
            access: check,
          };
          const from = context.source.token !== "profile" ? ` (from ${context.source.token === "env" ? "WAYBILL_TOKEN" : "--token"})` : "";
          const rows: [string, string | undefined][] = [
            ["url", context.url],
            ["profile", cell(value.profile)],
            ["credential", `${identity.credential}${from}`],
            ["token", fromProfile?.tokenId ? `${fromProfile.tokenId} "${fromProfile.tokenName ?? ""}"` : undefined],
            ["user", identity.user],
            ["role", identity.role],
            // A token does not say its tenant; a session's claims do.
            ["tenant", identity.tenantId],
            ["expires", identity.expiresAt],
            ["access", check === "ok" ? context.print.c.green("ok") : context.print.c.yellow(check)],
          ];
          context.print.item(
            value,
            rows.filter((row): row is [string, string] => row[1] !== undefined),
          );
        }),
      ),
    "waybill whoami",
    "WAYBILL_TOKEN=cli-… waybill whoami --json",
  );
}
