// waybill logout: revokes the token login created (a token may revoke itself) and forgets the profile.
import type { Command } from "commander";
import { WaybillApiError } from "@waybill/sdk";
import { removeProfile } from "../../config/profiles.js";
import { action, type Context } from "../../context.js";
import { examples } from "../../help.js";

export function registerLogout(program: Command): void {
  examples(
    program
      .command("logout")
      .description("Revoke the cli token login created for this machine and forget the profile")
      .action(
        action(async (context) => {
          const profile = context.profile;
          if (!profile) {
            context.print.result(`No profile "${context.profileName}" to log out of.`, { profile: context.profileName, removed: false, revoked: false });
            return;
          }
          const revoked = profile.createdByLogin && profile.tokenId ? await revokeOwnToken(context, profile.tokenId, profile.token) : false;
          await removeProfile(context.profileName);
          const { c } = context.print;
          context.print.result(`${c.green("✓")} Logged out${revoked ? `: token ${profile.tokenId} revoked` : ""}; profile "${context.profileName}" removed.`, {
            profile: context.profileName,
            removed: true,
            revoked,
            tokenId: profile.tokenId ?? null,
          });
          if (!profile.createdByLogin && profile.credential !== "session")
            context.print.note("The token you logged in with was yours, not login's: it still works until revoked (`waybill tokens revoke <id>`).");
        }),
      ),
    "waybill logout",
    "waybill logout --profile staging",
  );
}

/** True once revoked; a token the server no longer takes (expired, revoked elsewhere) counts as done. */
async function revokeOwnToken(context: Context, tokenId: string, token: string): Promise<boolean> {
  const api = context.api({ authorization: `Bearer ${token}` });
  try {
    await context.wait("Revoking the token", api.DELETE("/tokens/{id}", { params: { path: { id: tokenId } } }));
    return true;
  } catch (error) {
    if (error instanceof WaybillApiError && (error.status === 401 || error.status === 404)) return true;
    throw error;
  }
}
