// Settings: the theme, and the person's sessions (this device and others), each other one
// endable; ending one signs that device out.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { listSessions, endSession, type SessionRecord } from "../auth.js";
import { DataList } from "../components/data-list.js";
import { Confirm } from "../components/dialog.js";
import { ago, when } from "../components/format.js";
import { PageHeader } from "../components/page-header.js";
import { ErrorState, QueryView } from "../components/states.js";
import { ThemeSwitch } from "../components/theme-switch.js";
import { useSession, useSignedIn } from "../session.js";

/** "Chromium on Linux" from a User-Agent, or the raw text when it is not recognised. */
export function deviceName(userAgent: string | null): string {
  if (!userAgent) return "Unknown device";
  const browser = /Edg\//.test(userAgent)
    ? "Edge"
    : /Firefox\//.test(userAgent)
      ? "Firefox"
      : /Chrom(e|ium)\//.test(userAgent)
        ? "Chromium/Chrome"
        : /Safari\//.test(userAgent)
          ? "Safari"
          : undefined;
  const system = /Android/.test(userAgent)
    ? "Android"
    : /iPhone|iPad/.test(userAgent)
      ? "iOS"
      : /Mac OS X/.test(userAgent)
        ? "macOS"
        : /Windows/.test(userAgent)
          ? "Windows"
          : /Linux/.test(userAgent)
            ? "Linux"
            : undefined;
  return browser && system ? `${browser} on ${system}` : userAgent;
}

export default function SettingsScreen() {
  const session = useSignedIn();
  const { signOut } = useSession();
  const client = useQueryClient();
  const sessions = useQuery({ queryKey: ["sessions"], queryFn: () => listSessions(session.token) });
  const end = useMutation({
    mutationFn: (id: string) => endSession(session.token, id),
    onSuccess: () => void client.invalidateQueries({ queryKey: ["sessions"] }),
  });
  return (
    <section aria-labelledby="settings-title">
      <PageHeader
        titleId="settings-title"
        title="Settings"
        description={session.email ? `Signed in as ${session.email} (${session.role}).` : `Signed in (${session.role}).`}
        actions={
          <button type="button" onClick={() => void signOut("You signed out.")}>
            Sign out
          </button>
        }
      />
      <article className="panel stack" aria-labelledby="settings-theme">
        <h2 id="settings-theme">Theme</h2>
        <p className="muted">Light, dark, or as the system is set. Kept on this device.</p>
        <div>
          <ThemeSwitch />
        </div>
      </article>
      <article className="panel" aria-labelledby="settings-sessions">
        <h2 id="settings-sessions">Sessions</h2>
        <p className="muted">Where you are signed in. Ending a session signs that device out at once.</p>
        {end.error && <ErrorState error={end.error} />}
        <QueryView query={sessions} what="sessions">
          {(list) => (
            <DataList<SessionRecord>
              label="Sessions"
              rows={list}
              rowKey={(s) => s.id}
              columns={[
                { header: "Device", card: "title", cell: (s) => <span>{deviceName(s.userAgent)}</span> },
                {
                  header: "This device",
                  card: "status",
                  cell: (s) => (s.current ? <span className="pill tone-info">This device</span> : <span className="muted">Other</span>),
                },
                { header: "Last used", cell: (s) => ago(s.lastUsedAt) },
                { header: "Signed in", cell: (s) => when(s.createdAt) },
                { header: "Expires", cell: (s) => when(s.expiresAt) },
                {
                  header: "Actions",
                  card: "action",
                  cell: (s) =>
                    s.current ? (
                      <span className="muted">Use Sign out</span>
                    ) : (
                      <Confirm
                        trigger="End session"
                        title="End this session?"
                        description={`${deviceName(s.userAgent)}, last used ${ago(s.lastUsedAt)}, is signed out at once.`}
                        action="End session"
                        onConfirm={() => end.mutate(s.id)}
                      />
                    ),
                },
              ]}
            />
          )}
        </QueryView>
      </article>
    </section>
  );
}
