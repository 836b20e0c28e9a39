import { createCallerFactory, router } from "../trpc/index.js";
import { notificationsRouter } from "./notifications/router.js";
import { restrictionRouter } from "./restriction/router.js";

export const appRouter = router({
  restriction: restrictionRouter,
  notifications: notificationsRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
