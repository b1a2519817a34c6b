import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter } from "react-router";
import { App } from "./app.js";
import { SessionProvider } from "./session.js";
import { applyTheme, storedTheme } from "./theme.js";
import "./styles/tokens.css";
import "./styles/app.css";

// Before the first paint, so a dark choice never flashes light.
applyTheme(storedTheme());

// Data already shown stays on screen while offline; queries wait for the network to come back.
// Changes are never held back to run later: offline, the API client refuses them at once.
const queries = new QueryClient({
  defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false, gcTime: 30 * 60_000 }, mutations: { networkMode: "always" } },
});

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <BrowserRouter>
        <SessionProvider>
          <App />
        </SessionProvider>
      </BrowserRouter>
    </QueryClientProvider>
  </StrictMode>,
);

// The installed (mobile) app opens its shell without a network; API answers are never cached.
if ("serviceWorker" in navigator) void navigator.serviceWorker.register("/sw.js").catch(() => {});
