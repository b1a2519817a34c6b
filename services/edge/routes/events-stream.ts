// /v1/events/stream: the tenant's events as they happen, as Server-Sent Events (see events/).
import { appError } from "@waybill/contracts/errors/catalog.js";
import { idPattern } from "@waybill/platform/ids.js";
import type { EventStreams } from "../events/event-streams.js";
import { route, type Api } from "../route.js";
import { eventsStreamQuery, lastEventId } from "../schemas/events.js";

export const LAST_EVENT_ID_HEADER = "Last-Event-ID";

export function eventsStreamRoute(api: Api, streams: EventStreams): void {
  route(
    api,
    {
      method: "get",
      path: "/events/stream",
      summary: "Stream the tenant's events as they happen (Server-Sent Events)",
      description:
        "Each event is one SSE message: `id:` the event id, `event:` its kind, `data:` the event JSON exactly as a webhook delivery's body. " +
        "Send `Last-Event-ID` to resume strictly after that event. A comment line is sent as heartbeat (every 15 s by default). " +
        "A reader that stops reading is disconnected once it stays too far behind; a credential may hold a few streams at once (429 `too_many_streams` beyond).",
      tag: "events",
      capability: "read",
      query: eventsStreamQuery,
      produces: "text/event-stream",
      errors: ["invalid_last_event_id", "too_many_streams", "events_unavailable"],
      headerParams: [
        {
          name: LAST_EVENT_ID_HEADER,
          description: "Resume after this event id (evt_…), as EventSource sends on reconnection",
          pattern: idPattern("evt").source,
        },
      ],
    },
    async ({ query, principal }, ctx) => {
      const sent = ctx.get(LAST_EVENT_ID_HEADER);
      if (sent && !lastEventId.safeParse(sent).success) {
        throw appError("invalid_last_event_id", "Last-Event-ID must be an event id (evt_…).", {
          errors: [{ path: LAST_EVENT_ID_HEADER, message: "an event id (evt_…)" }],
        });
      }
      // HEAD shows the head of a stream without opening one (it could never carry an event).
      if (ctx.method === "HEAD") return { headers: { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache" } };
      // The response is written here, not by Koa: it lasts as long as the connection.
      const headers = Object.fromEntries(Object.entries(ctx.response.headers).map(([name, value]) => [name, String(value)]));
      ctx.respond = false;
      try {
        await streams.serve(ctx.res, headers, {
          tenantId: principal.tenantId,
          credentialId: principal.credentialId,
          kinds: query.kind,
          lastEventId: sent || undefined,
        });
      } catch (error) {
        ctx.respond = true;
        throw error;
      }
      return {};
    },
  );
}
