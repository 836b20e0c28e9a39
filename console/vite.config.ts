// Builds the operator console into console/dist, served by the service at /console (server/http/console.ts).
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/console/",
  plugins: [react()],
  // No inline scripts or styles in the built page: Helmet's Content-Security-Policy allows 'self' only.
  build: { outDir: "dist", emptyOutDir: true, assetsInlineLimit: 0 },
  logLevel: "warn",
});
