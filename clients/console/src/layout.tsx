// The frame around every signed-in screen: navigation by screen name, folded behind a `Menu`
// button on a phone, and sign-out.
import { useState, type ReactNode } from "react";
import { NavLink, useLocation } from "react-router";
import { useSession } from "./session.js";

export const SCREENS = [
  { path: "/", name: "Dashboard" },
  { path: "/tokens", name: "API tokens" },
  { path: "/webhooks", name: "Webhooks" },
  { path: "/orders", name: "Orders" },
  { path: "/inventory", name: "Inventory" },
  { path: "/devices", name: "Devices" },
  { path: "/events", name: "Events" },
  { path: "/warehouse", name: "Warehouse" },
  { path: "/users", name: "Users", admin: true },
] as const;

export function Layout({ children }: { children: ReactNode }) {
  const { session, signOut } = useSession();
  const [open, setOpen] = useState(false);
  const location = useLocation();
  const [seen, setSeen] = useState(location.pathname);
  if (seen !== location.pathname) {
    setSeen(location.pathname);
    setOpen(false); // a chosen screen folds the menu again
  }
  return (
    <div className="frame">
      <header className="top">
        <span className="brand">Waybill</span>
        <button type="button" className="menu-button" aria-expanded={open} aria-controls="navigation" onClick={() => setOpen(!open)}>
          Menu
        </button>
        <nav id="navigation" aria-label="Screens" className={open ? "open" : undefined}>
          <ul>
            {SCREENS.filter((s) => !("admin" in s) || session?.role === "admin").map((screen) => (
              <li key={screen.path}>
                <NavLink to={screen.path} end={screen.path === "/"}>
                  {screen.name}
                </NavLink>
              </li>
            ))}
          </ul>
          <p className="who">
            {session?.email}
            <button type="button" onClick={() => signOut("You signed out.")}>
              Sign out
            </button>
          </p>
        </nav>
      </header>
      <main>{children}</main>
    </div>
  );
}
