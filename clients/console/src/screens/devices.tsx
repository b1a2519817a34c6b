// Devices: connected or not, last seen, and their recent readings (device.reading events).
import { Table } from "../components/table.js";
import { useQuery } from "@tanstack/react-query";
import { when } from "../components/format.js";
import { Empty, QueryView } from "../components/states.js";
import { useApi } from "../session.js";

interface Reading {
  id: string;
  time: string;
  deviceId: string;
  reading: Record<string, unknown>;
}

export default function Devices() {
  const api = useApi();
  const devices = useQuery({ queryKey: ["devices"], queryFn: async () => (await api.GET("/devices")).data!.data, refetchInterval: 10_000 });
  const readings = useQuery({
    queryKey: ["readings"],
    queryFn: async () => (await api.GET("/events", { params: { query: { kind: "device.reading", limit: 50 } } })).data!.data as unknown as Reading[],
    refetchInterval: 10_000,
  });
  return (
    <section aria-labelledby="devices-title">
      <h1 id="devices-title">Devices</h1>
      <QueryView query={devices} what="devices">
        {(list) =>
          list.length === 0 ? (
            <Empty>No device has connected yet. Devices sign in over MQTT with a sensor token.</Empty>
          ) : (
            <Table
              rows={list}
              rowKey={(d) => d.id}
              columns={[
                { header: "Device", cell: (d) => d.id },
                {
                  header: "Connected",
                  cell: (d) => <span className={`badge ${d.connected ? "active" : "paused"}`}>{d.connected ? "connected" : "disconnected"}</span>,
                },
                { header: "Last seen", cell: (d) => when(d.lastSeenAt) },
                {
                  header: "Recent readings",
                  cell: (d) =>
                    (readings.data ?? [])
                      .filter((r) => r.deviceId === d.id)
                      .slice(0, 3)
                      .map((r) => JSON.stringify(r.reading))
                      .join("; ") || "—",
                },
              ]}
            />
          )
        }
      </QueryView>
    </section>
  );
}
