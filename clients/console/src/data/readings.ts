// Device readings: the device.reading events of the log, newest first, by the id a device
// connects with (its MQTT username), which the events name as deviceId.
import { useQuery } from "@tanstack/react-query";
import { useApi } from "../session.js";
import { eventsPage, readAll } from "./queries.js";

export interface Reading {
  id: string;
  time: string;
  deviceId: string;
  reading: Record<string, unknown>;
}

export function useReadings() {
  const api = useApi();
  return useQuery({
    queryKey: ["readings"],
    queryFn: async () => (await readAll(eventsPage(api, { kind: "device.reading" }), 500)) as unknown as Reading[],
    refetchInterval: 10_000,
  });
}

/** "temperatureC 4.1 · humidity 41" */
export function readingText(reading: Record<string, unknown>): string {
  return Object.entries(reading)
    .map(([k, v]) => `${k} ${typeof v === "object" ? JSON.stringify(v) : String(v)}`)
    .join(" · ");
}
