import { QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { Router } from "wouter";
import { App } from "./App.js";
import { queryClient } from "./api.js";

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <Router base="/console">
        <App />
      </Router>
    </QueryClientProvider>
  </StrictMode>,
);
