// Devices: each by the id it connects with, connected or not, last seen, its latest reading;
// filtered by connection; each opens its detail.
import type { Device } from "@waybill/sdk";
import { Link, useSearchParams } from "react-router";
import { DataList } from "../components/data-list.js";
import { ago } from "../components/format.js";
import { KeyRound, Radio } from "../components/icons.js";
import { PageHeader } from "../components/page-header.js";
import { StatusPill } from "../components/status.js";
import { Empty, QueryView } from "../components/states.js";
import { useDevices } from "../data/queries.js";
import { readingText, useReadings } from "../data/readings.js";

export default function Devices() {
  const devices = useDevices();
  const readings = useReadings();
  const [params, setParams] = useSearchParams();
  const connection = params.get("connection") ?? "";
  return (
    <section aria-labelledby="devices-title">
      <PageHeader
        titleId="devices-title"
        title="Devices"
        description="Sensors that connect over MQTT with a sensor token and publish stock counts, shipment scans and telemetry."
        actions={
          <Link className="button primary" to="/tokens?type=sensor">
            <KeyRound size={18} aria-hidden="true" />
            New sensor token
          </Link>
        }
      />
      <search className="toolbar" aria-label="Filter devices">
        <label>
          Connection
          <select
            value={connection}
            onChange={(e) => {
              const next = new URLSearchParams(params);
              if (e.target.value) next.set("connection", e.target.value);
              else next.delete("connection");
              setParams(next, { replace: true });
            }}
          >
            <option value="">All devices</option>
            <option value="connected">Connected</option>
            <option value="disconnected">Disconnected</option>
          </select>
        </label>
      </search>
      <QueryView query={devices} what="devices">
        {(all) => {
          const list = all.filter((d) => !connection || (connection === "connected") === d.connected);
          return list.length === 0 ? (
            <Empty
              icon={Radio}
              title={connection ? "No device in this state." : "No device has connected yet."}
              cli='waybill tokens create --name "Shelf sensors" --type sensor'
            >
              Create a sensor token, then connect with the device's id as MQTT user name and the token as password.
            </Empty>
          ) : (
            <DataList<Device>
              label="Devices"
              rows={list}
              rowKey={(d) => d.id}
              columns={[
                { header: "Device", card: "title", cell: (d) => <Link to={`/devices/${encodeURIComponent(d.deviceId)}`}>{d.deviceId}</Link> },
                { header: "Connection", card: "status", cell: (d) => <StatusPill status={d.connected ? "connected" : "disconnected"} /> },
                { header: "Last seen", cell: (d) => <span className="nowrap">{ago(d.lastSeenAt)}</span> },
                {
                  header: "Latest reading",
                  cell: (d) => {
                    const latest = readings.data?.find((r) => r.deviceId === d.deviceId);
                    return latest ? <span data-testid={`latest-${d.deviceId}`}>{readingText(latest.reading)}</span> : <span className="muted">none yet</span>;
                  },
                },
              ]}
            />
          );
        }}
      </QueryView>
    </section>
  );
}
