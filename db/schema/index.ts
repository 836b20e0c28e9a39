export * from "./api-keys.js";
export * from "./audit.js";
export * from "./auth.js";
export * from "./change-requests.js";
export * from "./notifications.js";
export * from "./producer-events.js";
export * from "./rate-limits.js";
export * from "./restriction.js";
