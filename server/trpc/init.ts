// tRPC initialisation: the context type, the transformer and the error shape every client sees.
import { initTRPC } from "@trpc/server";
import type { Context } from "../context.js";
import { toAppError } from "../errors/error-mapper.js";
import { transformer } from "./transformer.js";

export const t = initTRPC.context<Context>().create({
  // Dates and other non-JSON values reach the typed client with their types (superjson, ./transformer.ts).
  transformer,
  // Subscriptions (the live unread count) stream over SSE; a ping every 15 s keeps proxies from closing them.
  sse: { ping: { enabled: true, intervalMs: 15_000 } },
  errorFormatter({ shape, error }) {
    const appError = toAppError(error);
    return {
      ...shape,
      message: appError.message,
      // Never a stack: the message is all a caller needs.
      data: {
        code: shape.data.code,
        httpStatus: appError.status,
        path: shape.data.path,
        appCode: appError.kind,
        details: appError.details ?? null,
      },
    };
  },
});
