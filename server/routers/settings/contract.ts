// The settings procedure's public shape (server/routers/contract.ts): kind, input, answer.
import { z } from "zod";
import { query } from "../contract.js";

export const settingsOutput = z
  .object({
    approvals: z.enum(["off", "required"]).describe("APPROVALS: required when a second admin approves activations and admin grants"),
    vapidConfigured: z.boolean().describe("Whether Web Push keys are set (VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY): without them push is off"),
    signUp: z.enum(["open", "closed"]).describe("SIGN_UP: closed when only admins create accounts"),
  })
  .meta({ id: "Settings", description: "The modes the service runs in, for the console" });

export const settingsContract = {
  get: query(settingsOutput),
};
