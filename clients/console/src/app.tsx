// Routes (CONTRACTS.md §3): the sign-in page until there is a session, then every screen, each
// its own chunk so the first load stays small.
import { lazy, Suspense } from "react";
import { Route, Routes } from "react-router";
import { LoaderCircle } from "./components/icons.js";
import { Empty, Loading } from "./components/states.js";
import { Layout } from "./layout.js";
import SignIn from "./screens/sign-in.js";
import { useSession } from "./session.js";

const Dashboard = lazy(() => import("./screens/dashboard.js"));
const Orders = lazy(() => import("./screens/orders.js"));
const Order = lazy(() => import("./screens/order.js"));
const Webhooks = lazy(() => import("./screens/webhooks.js"));
const Webhook = lazy(() => import("./screens/webhook.js"));
const Events = lazy(() => import("./screens/events.js"));
const EventDetail = lazy(() => import("./screens/event.js"));
const Devices = lazy(() => import("./screens/devices.js"));
const DeviceDetail = lazy(() => import("./screens/device.js"));
const Inventory = lazy(() => import("./screens/inventory.js"));
const ProductDetail = lazy(() => import("./screens/product.js"));
const Customers = lazy(() => import("./screens/customers.js"));
const CustomerDetail = lazy(() => import("./screens/customer.js"));
const Tokens = lazy(() => import("./screens/tokens.js"));
const Users = lazy(() => import("./screens/users.js"));
const Warehouse = lazy(() => import("./screens/warehouse.js"));
const SettingsScreen = lazy(() => import("./screens/settings.js"));

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
          <Route path="/orders/:id" element={<Order />} />
          <Route path="/webhooks" element={<Webhooks />} />
          <Route path="/webhooks/:id" element={<Webhook />} />
          <Route path="/events" element={<Events />} />
          <Route path="/events/:id" element={<EventDetail />} />
          <Route path="/devices" element={<Devices />} />
          <Route path="/devices/:id" element={<DeviceDetail />} />
          <Route path="/inventory" element={<Inventory />} />
          <Route path="/products/:id" element={<ProductDetail />} />
          <Route path="/customers" element={<Customers />} />
          <Route path="/customers/:id" element={<CustomerDetail />} />
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
