// Routes: the sign-in page until there is a session, then every screen (each its own chunk).
import { lazy, Suspense } from "react";
import { Route, Routes } from "react-router";
import { Loading } from "./components/states.js";
import { Layout } from "./layout.js";
import { useSession } from "./session.js";
import SignIn from "./screens/sign-in.js";

const Dashboard = lazy(() => import("./screens/dashboard.js"));
const Tokens = lazy(() => import("./screens/tokens.js"));
const Webhooks = lazy(() => import("./screens/webhooks.js"));
const Webhook = lazy(() => import("./screens/webhook.js"));
const Orders = lazy(() => import("./screens/orders.js"));
const Order = lazy(() => import("./screens/order.js"));
const Inventory = lazy(() => import("./screens/inventory.js"));
const Devices = lazy(() => import("./screens/devices.js"));
const Events = lazy(() => import("./screens/events.js"));
const Warehouse = lazy(() => import("./screens/warehouse.js"));
const Users = lazy(() => import("./screens/users.js"));

export function App() {
  const { session } = useSession();
  if (!session) return <SignIn />;
  return (
    <Layout>
      <Suspense fallback={<Loading what="the screen" />}>
        <Routes>
          <Route path="/" element={<Dashboard />} />
          <Route path="/tokens" element={<Tokens />} />
          <Route path="/webhooks" element={<Webhooks />} />
          <Route path="/webhooks/:id" element={<Webhook />} />
          <Route path="/orders" element={<Orders />} />
          <Route path="/orders/:id" element={<Order />} />
          <Route path="/inventory" element={<Inventory />} />
          <Route path="/devices" element={<Devices />} />
          <Route path="/events" element={<Events />} />
          <Route path="/warehouse" element={<Warehouse />} />
          <Route path="/users" element={<Users />} />
          <Route path="*" element={<p className="state">No such screen.</p>} />
        </Routes>
      </Suspense>
    </Layout>
  );
}
