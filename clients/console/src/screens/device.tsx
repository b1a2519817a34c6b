// One device: its own id, connection and last seen, its token, and its recent readings with a
// small chart of each numeric field.
import type { Device } from "@waybill/sdk";
import { Link, useParams } from "react-router";
import { DataList } from "../components/data-list.js";
import { ago, when } from "../components/format.js";
import { Radio } from "../components/icons.js";
import { PageHeader } from "../components/page-header.js";
import { Sparkline } from "../components/sparkline.js";
import { StatusPill } from "../components/status.js";
import { Empty, QueryView } from "../components/states.js";
import { useDevices } from "../data/queries.js";
import { type Reading, readingText, useReadings } from "../data/readings.js";

/** Numeric fields of the readings, each as a series oldest to newest. */
export function numericSeries(readings: Reading[]): [string, number[]][] {
  const fields = new Map<string, number[]>();
  for (const r of [...readings].reverse()) {
    for (const [k, v] of Object.entries(r.reading)) if (typeof v === "number") fields.set(k, [...(fields.get(k) ?? []), v]);
  }
  return [...fields.entries()];
}

export default function DeviceDetail() {
  const { id = "" } = useParams();
  const devices = useDevices();
  const readings = useReadings();
  return (
    <QueryView query={{ ...devices, data: devices.data ? (devices.data.find((d) => d.deviceId === id || d.id === id) ?? null) : undefined }} what="the device">
      {(d: Device | null) => {
        if (!d)
          return (
            <Empty icon={Radio} title={`No device ${id}.`}>
              A device appears here once it has connected over MQTT.
            </Empty>
          );
        const own = (readings.data ?? []).filter((r) => r.deviceId === d.deviceId);
        return (
          <section aria-labelledby="device-title">
            <PageHeader
              titleId="device-title"
              back={{ to: "/devices", label: "Devices" }}
              title={d.deviceId}
              status={<StatusPill status={d.connected ? "connected" : "disconnected"} testId="device-status" />}
              description={`Last seen ${ago(d.lastSeenAt)}`}
            />
            <div className="grid-2">
              <article className="panel" aria-labelledby="device-facts">
                <h2 id="device-facts">Details</h2>
                <dl className="facts">
                  <dt>Device id</dt>
                  <dd>{d.deviceId}</dd>
                  <dt>Connection</dt>
                  <dd>{d.connected ? "Connected" : "Disconnected"}</dd>
                  <dt>Last seen</dt>
                  <dd>{when(d.lastSeenAt)}</dd>
                  <dt>Token</dt>
                  <dd>
                    <Link to={`/tokens?id=${encodeURIComponent(d.tokenId)}`} className="id">
                      {d.tokenId}
                    </Link>
                  </dd>
                  <dt>First seen</dt>
                  <dd>{when(d.createdAt)}</dd>
                  <dt>Registry id</dt>
                  <dd className="id">{d.id}</dd>
                </dl>
              </article>
              <article className="panel" aria-labelledby="device-chart">
                <h2 id="device-chart">Trend</h2>
                {numericSeries(own.slice(0, 50)).length === 0 ? (
                  <p className="muted">No numeric readings yet.</p>
                ) : (
                  <div className="stack">
                    {numericSeries(own.slice(0, 50)).map(([field, values]) => (
                      <Sparkline key={field} label={field} values={values} />
                    ))}
                  </div>
                )}
              </article>
            </div>
            <article className="panel" aria-labelledby="device-readings">
              <h2 id="device-readings">Recent readings</h2>
              <QueryView query={readings} what="readings">
                {() =>
                  own.length === 0 ? (
                    <Empty title="No readings yet.">{`The device publishes telemetry on devices/${d.deviceId}/telemetry.`}</Empty>
                  ) : (
                    <DataList<Reading>
                      label="Recent readings"
                      rows={own.slice(0, 20)}
                      rowKey={(r) => r.id}
                      columns={[
                        { header: "Reading", card: "title", cell: (r) => <span data-testid="reading">{readingText(r.reading)}</span> },
                        { header: "Time", cell: (r) => <Link to={`/events/${r.id}`}>{when(r.time)}</Link> },
                      ]}
                    />
                  )
                }
              </QueryView>
            </article>
          </section>
        );
      }}
    </QueryView>
  );
}
