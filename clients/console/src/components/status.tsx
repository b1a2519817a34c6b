// Status pills: every status of orders, shipments, hooks, executions, devices and tokens with an
// icon, a colour and a human label ("In progress", never `inProgress`).
import { humanize } from "./format.js";
import {
  Ban,
  CircleAlert,
  CircleCheck,
  CircleDashed,
  CirclePause,
  CircleX,
  Clock,
  type LucideIcon,
  Hourglass,
  LoaderCircle,
  PackageCheck,
  Plug,
  Truck,
  Unplug,
} from "./icons.js";

type Tone = "ok" | "bad" | "warn" | "info" | "neutral";

const STATUSES: Record<string, { icon: LucideIcon; tone: Tone; label?: string }> = {
  // orders
  pending: { icon: Clock, tone: "neutral" },
  ready: { icon: CircleDashed, tone: "info" },
  inProgress: { icon: LoaderCircle, tone: "info", label: "In progress" },
  completed: { icon: CircleCheck, tone: "ok" },
  cancelled: { icon: Ban, tone: "neutral" },
  // shipments
  inTransit: { icon: Truck, tone: "info", label: "In transit" },
  delivered: { icon: PackageCheck, tone: "ok" },
  exception: { icon: CircleAlert, tone: "bad" },
  // hooks
  active: { icon: CircleCheck, tone: "ok" },
  paused: { icon: CirclePause, tone: "warn" },
  disabled: { icon: CircleX, tone: "bad", label: "Auto-disabled" },
  failing: { icon: CircleAlert, tone: "bad" },
  // executions
  succeeded: { icon: CircleCheck, tone: "ok" },
  failed: { icon: CircleX, tone: "bad" },
  retrying: { icon: Hourglass, tone: "warn" },
  // devices
  connected: { icon: Plug, tone: "ok" },
  disconnected: { icon: Unplug, tone: "neutral" },
  // tokens, stock
  revoked: { icon: Ban, tone: "bad" },
  expired: { icon: Clock, tone: "neutral" },
  low: { icon: CircleAlert, tone: "warn", label: "Low stock" },
  out: { icon: CircleX, tone: "bad", label: "Out of stock" },
};

export function statusLabel(status: string): string {
  return STATUSES[status]?.label ?? humanize(status);
}

export function StatusPill({ status, testId }: { status: string; testId?: string }) {
  const known = STATUSES[status] ?? { icon: CircleDashed, tone: "neutral" as const };
  const Icon = known.icon;
  return (
    <span className={`pill tone-${known.tone}`} data-status={status} data-testid={testId}>
      <Icon size={14} aria-hidden="true" className="icon" />
      {statusLabel(status)}
    </span>
  );
}
