export * from "./auth.js";
export * from "./restriction.js";
export * from "./notifications.js";
export * from "./audit.js";
export * from "./rate-limits.js";
