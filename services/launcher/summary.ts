// What `npm start` tells its user once everything runs: where to reach Waybill and what it is
// connected to (which PostgreSQL and database, which NATS and stream prefix, whether hooks may
// call private addresses), so that two installations on one machine cannot be confused. No
// secrets: passwords are stripped from every URL.

export interface RunningSummary {
  /** The edge's base URL (http://host:port). */
  httpUrl: string;
  /** Where the edge's HTTP port is bound. */
  httpBindHost: string;
  mqttUrl: string;
  mqttBindHost: string;
  databaseUrl: string;
  natsUrl: string;
  natsUser?: string;
  streamPrefix: string;
  /** The streams this installation uses (the prefix applied). */
  streams: string[];
  allowPrivateNetworks: boolean;
  /** The installation this database belongs to, when known. */
  installationId?: string;
  opsPorts: Record<string, number>;
}

/** The lines printed under "Waybill is running." */
export function runningSummaryLines(s: RunningSummary): string[] {
  const httpPort = new URL(s.httpUrl).port;
  const mqttPort = new URL(s.mqttUrl).port;
  return [
    `  HTTP API:   ${s.httpUrl}/v1   (health: ${s.httpUrl}/healthz; port ${httpPort} on ${s.httpBindHost})`,
    `  Console:    ${s.httpUrl}/   (sign in with the admin's email and password)`,
    `  API docs:   ${s.httpUrl}/docs`,
    `  MQTT:       ${s.mqttUrl}   (port ${mqttPort} on ${s.mqttBindHost})`,
    `  PostgreSQL: ${describeDatabase(s.databaseUrl)}`,
    `  NATS:       ${withoutPasswords(s.natsUrl)}${s.natsUser ? ` as ${s.natsUser}` : ""}, stream prefix ${s.streamPrefix ? `"${s.streamPrefix}"` : "none (STREAM_PREFIX unset)"}: ${s.streams.join(", ")}`,
    ...(s.installationId ? [`  Installation: ${s.installationId} (owns those streams)`] : []),
    `  Webhooks:   ${
      s.allowPrivateNetworks
        ? "private and loopback addresses ALLOWED (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)"
        : "private and loopback addresses refused (set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true to allow)"
    }`,
    `  ops ports:  ${Object.entries(s.opsPorts)
      .map(([service, port]) => `${service} ${port}`)
      .join(", ")}`,
  ];
}

/** host:port/database and user of a PostgreSQL URL, without its password. */
export function describeDatabase(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    const database = decodeURIComponent(url.pathname.replace(/^\//, "")) || "(default)";
    const host = url.host || new URLSearchParams(url.search).get("host") || "localhost";
    return `${host}/${database}${url.username ? ` as ${decodeURIComponent(url.username)}` : ""}`;
  } catch {
    return "(unparsable DATABASE_URL)";
  }
}

/** A URL, or a comma-separated list of them, with any password removed. */
export function withoutPasswords(urls: string): string {
  return urls
    .split(",")
    .map((part) => {
      const trimmed = part.trim();
      try {
        const url = new URL(trimmed);
        if (!url.password) return trimmed;
        url.password = "";
        return url.toString().replace(/\/$/, "");
      } catch {
        // Not a URL (a bare host:port): it can carry no password unless it has user:pass@.
        return trimmed.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1@").replace(/^([^:@/]+):[^@/]*@/, "$1@");
      }
    })
    .join(",");
}
