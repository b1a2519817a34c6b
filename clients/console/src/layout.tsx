// The frame around every signed-in screen: a side bar on a wide screen; on a phone a top bar with
// search and a bottom bar within reach of the thumb, whose `Menu` opens every screen. An offline
// banner when the network is gone; ⌘K / Ctrl-K opens the global search anywhere.
import { useCallback, useEffect, useState, type ReactNode } from "react";
import { Link, NavLink, useLocation } from "react-router";
import {
  Activity,
  Boxes,
  Contact,
  KeyRound,
  LayoutDashboard,
  LogOut,
  type LucideIcon,
  Menu,
  Package,
  Radio,
  Search,
  Settings,
  ShoppingCart,
  Users,
  Warehouse,
  Webhook,
  WifiOff,
  X,
} from "./components/icons.js";
import { useOnline } from "./components/online.js";
import { SearchDialog, useSearchShortcut } from "./components/search-dialog.js";
import { ThemeSwitch } from "./components/theme-switch.js";
import { useSession } from "./session.js";

interface Screen {
  path: string;
  name: string;
  icon: LucideIcon;
  admin?: boolean;
  tab?: boolean;
}

export const SCREENS: Screen[] = [
  { path: "/", name: "Dashboard", icon: LayoutDashboard, tab: true },
  { path: "/orders", name: "Orders", icon: ShoppingCart, tab: true },
  { path: "/webhooks", name: "Webhooks", icon: Webhook, tab: true },
  { path: "/events", name: "Events", icon: Activity, tab: true },
  { path: "/devices", name: "Devices", icon: Radio },
  { path: "/inventory", name: "Inventory", icon: Boxes },
  { path: "/customers", name: "Customers", icon: Contact },
  { path: "/warehouse", name: "Warehouse", icon: Warehouse },
  { path: "/tokens", name: "API tokens", icon: KeyRound },
  { path: "/users", name: "Users", icon: Users, admin: true },
  { path: "/settings", name: "Settings", icon: Settings },
];

export function Layout({ children }: { children: ReactNode }) {
  const { session, signOut } = useSession();
  const [menuOpen, setMenuOpen] = useState(false);
  const [searchOpen, setSearchOpen] = useState(false);
  const online = useOnline();
  const location = useLocation();
  const openSearch = useCallback(() => setSearchOpen(true), []);
  useSearchShortcut(openSearch);
  // A chosen screen folds the menu again.
  const [seen, setSeen] = useState(location.pathname);
  if (seen !== location.pathname) {
    setSeen(location.pathname);
    setMenuOpen(false);
  }
  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (event: KeyboardEvent) => event.key === "Escape" && setMenuOpen(false);
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [menuOpen]);
  const screens = SCREENS.filter((s) => !s.admin || session?.role === "admin");
  return (
    <div className="frame">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          <Package size={22} aria-hidden="true" />
          Waybill
        </Link>
        <button type="button" onClick={openSearch} aria-label="Search">
          <Search size={20} aria-hidden="true" />
        </button>
      </header>
      {menuOpen && <button type="button" className="sheet-backdrop" aria-label="Close menu" tabIndex={-1} onClick={() => setMenuOpen(false)} />}
      <aside className={menuOpen ? "sidebar open" : "sidebar"} aria-label="Console">
        <div className="sidebar-inner">
          <div className="row">
            <Link to="/" className="brand">
              <Package size={22} aria-hidden="true" />
              Waybill
            </Link>
            <button type="button" className="on-brand close-menu" aria-label="Close menu" onClick={() => setMenuOpen(false)}>
              <X size={20} aria-hidden="true" />
            </button>
          </div>
          <button type="button" className="on-brand search-trigger" onClick={openSearch} aria-keyshortcuts="Control+K Meta+K">
            <Search size={18} aria-hidden="true" />
            Search
            <kbd>Ctrl K</kbd>
          </button>
          <nav id="navigation" aria-label="Screens">
            <ul>
              {screens.map(({ path, name, icon: Icon }) => (
                <li key={path}>
                  <NavLink to={path} end={path === "/"}>
                    <Icon size={18} aria-hidden="true" />
                    {name}
                  </NavLink>
                </li>
              ))}
            </ul>
          </nav>
          <div className="who">
            <span>{session?.email ?? "Signed in"}</span>
            <div className="row">
              <ThemeSwitch />
              <button type="button" className="on-brand" onClick={() => void signOut("You signed out.")}>
                <LogOut size={18} aria-hidden="true" />
                Sign out
              </button>
            </div>
          </div>
        </div>
      </aside>
      <div className="content">
        {!online && (
          <p className="offline-banner" role="status">
            <WifiOff size={18} aria-hidden="true" />
            Offline: showing the last data seen. Nothing can be changed until the network is back.
          </p>
        )}
        <main id="main">{children}</main>
      </div>
      <nav className="tabbar" aria-label="Shortcuts">
        <ul>
          {screens
            .filter((s) => s.tab)
            .map(({ path, name, icon: Icon }) => (
              <li key={path}>
                <NavLink to={path} end={path === "/"}>
                  <Icon size={22} aria-hidden="true" />
                  {name}
                </NavLink>
              </li>
            ))}
          <li>
            <button type="button" aria-expanded={menuOpen} aria-controls="navigation" onClick={() => setMenuOpen(!menuOpen)}>
              <Menu size={22} aria-hidden="true" />
              Menu
            </button>
          </li>
        </ul>
      </nav>
      <SearchDialog open={searchOpen} onClose={() => setSearchOpen(false)} />
    </div>
  );
}
