// Routes (CONTRACTS.md §3): the sign-in page until there is a session, then every screen, each
// its own chunk so the first load stays small.
import { Fragment, lazy, type ReactElement, Suspense } from "react";
import { Route, Routes, useParams } from "react-router";
import { LoaderCircle } from "./components/icons.js";
import { Empty, Loading } from "./components/states.js";
import { Layout } from "./layout.js";
import SignIn from "./screens/sign-in.js";
import { useSession } from "./session.js";

const load = {
  dashboard: () => import("./screens/dashboard.js"),
  orders: () => import("./screens/orders.js"),
  order: () => import("./screens/order.js"),
  webhooks: () => import("./screens/webhooks.js"),
  webhook: () => import("./screens/webhook.js"),
  events: () => import("./screens/events.js"),
  event: () => import("./screens/event.js"),
  devices: () => import("./screens/devices.js"),
  device: () => import("./screens/device.js"),
  inventory: () => import("./screens/inventory.js"),
  product: () => import("./screens/product.js"),
  customers: () => import("./screens/customers.js"),
  customer: () => import("./screens/customer.js"),
  tokens: () => import("./screens/tokens.js"),
  users: () => import("./screens/users.js"),
  warehouse: () => import("./screens/warehouse.js"),
  settings: () => import("./screens/settings.js"),
};

// The screen of the address the console opens at starts loading now, beside the session check,
// instead of after it (the lazy component below then finds it loaded).
const [first, detail] = window.location.pathname.split("/").filter(Boolean);
const opening: Record<string, keyof typeof load> = {
  orders: detail ? "order" : "orders",
  webhooks: detail ? "webhook" : "webhooks",
  events: detail ? "event" : "events",
  devices: detail ? "device" : "devices",
  products: "product",
  customers: detail ? "customer" : "customers",
};
const openingScreen = first === undefined ? "dashboard" : (opening[first] ?? (first in load ? (first as keyof typeof load) : undefined));
if (openingScreen) void load[openingScreen]().catch(() => {});

const Dashboard = lazy(load.dashboard);
const Orders = lazy(load.orders);
const Order = lazy(load.order);
const Webhooks = lazy(load.webhooks);
const Webhook = lazy(load.webhook);
const Events = lazy(load.events);
const EventDetail = lazy(load.event);
const Devices = lazy(load.devices);
const DeviceDetail = lazy(load.device);
const Inventory = lazy(load.inventory);
const ProductDetail = lazy(load.product);
const Customers = lazy(load.customers);
const CustomerDetail = lazy(load.customer);
const Tokens = lazy(load.tokens);
const Users = lazy(load.users);
const Warehouse = lazy(load.warehouse);
const SettingsScreen = lazy(load.settings);

/**
 * A detail screen starts afresh for each item it shows: going from one webhook to another (search,
 * a link) keeps the same route, and without this the first one's notices and mutation results
 * (a test delivery's outcome, a retry's notice) stayed on the next one's page.
 */
function PerItem({ screen }: { screen: ReactElement }) {
  const { id } = useParams();
  return <Fragment key={id}>{screen}</Fragment>;
}

export function App() {
  const { session } = useSession();
  if (session === undefined) {
    return (
      <main className="splash" aria-busy="true">
        <p className="state" role="status">
          <LoaderCircle size={20} aria-hidden="true" className="spin" />
          Opening the console…
        </p>
      </main>
    );
  }
  if (session === null) return <SignIn />;
  return (
    <Layout>
      <Suspense fallback={<Loading what="the page" />}>
        <Routes>
          <Route path="/" element={<Dashboard />} />
          <Route path="/orders" element={<Orders />} />
          <Route path="/orders/:id" element={<PerItem screen={<Order />} />} />
          <Route path="/webhooks" element={<Webhooks />} />
          <Route path="/webhooks/:id" element={<PerItem screen={<Webhook />} />} />
          <Route path="/events" element={<Events />} />
          <Route path="/events/:id" element={<PerItem screen={<EventDetail />} />} />
          <Route path="/devices" element={<Devices />} />
          <Route path="/devices/:id" element={<PerItem screen={<DeviceDetail />} />} />
          <Route path="/inventory" element={<Inventory />} />
          <Route path="/products/:id" element={<PerItem screen={<ProductDetail />} />} />
          <Route path="/customers" element={<Customers />} />
          <Route path="/customers/:id" element={<PerItem screen={<CustomerDetail />} />} />
          <Route path="/tokens" element={<Tokens />} />
          <Route path="/users" element={<Users />} />
          <Route path="/warehouse" element={<Warehouse />} />
          <Route path="/settings" element={<SettingsScreen />} />
          <Route path="*" element={<Empty title="No such page.">Use the navigation or search (Ctrl K) to find what you are looking for.</Empty>} />
        </Routes>
      </Suspense>
    </Layout>
  );
}
