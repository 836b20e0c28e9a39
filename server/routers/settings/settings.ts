// The modes the service runs in (docs/api.md#settings): what the console needs to show the right paths,
// read from the process's configuration, never from the database.
import type { z } from "zod";
import type { HandlerArgs } from "../../context.js";
import type { settingsOutput } from "./contract.js";

export async function getSettings({ ctx }: HandlerArgs): Promise<z.infer<typeof settingsOutput>> {
  return { approvals: ctx.approvals ?? "off", vapidConfigured: ctx.push.vapid !== null, signUp: ctx.signUp ?? "open" };
}
