// The console builds to dist/, which the edge serves at `/`. JSX goes through esbuild (no Babel
// plugin needed); every screen is its own chunk, so the first load stays small.
import { defineConfig } from "vite";

export default defineConfig({
  base: "/",
  esbuild: { jsx: "automatic" },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    // Inline assets would be data: URLs; the CSP allows them for images only, so keep files.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    rollupOptions: {
      // Libraries mark their modules "use client" for React Server Components; meaningless here.
      onwarn(warning, warn) {
        if (warning.code !== "MODULE_LEVEL_DIRECTIVE") warn(warning);
      },
    },
  },
  server: { proxy: { "/v1": "http://127.0.0.1:8080" } },
});
