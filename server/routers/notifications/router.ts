// Notifications: wiring only. (Procedures arrive with issue B.)
import { router } from "../../trpc/index.js";

export const notificationsRouter = router({});
