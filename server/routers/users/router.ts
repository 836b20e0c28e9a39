// Account administration: wiring only. Admins only, but for stopping an impersonation, which the
// impersonation session itself asks for.
import { adminProcedure, authedProcedure, router } from "../../trpc/index.js";
import { usersContract as c } from "./contract.js";
import * as h from "./handlers.js";

export const usersRouter = router({
  list: adminProcedure.input(c.list.input).query(h.listUsers),
  create: adminProcedure.input(c.create.input).mutation(h.createUser),
  setRole: adminProcedure.input(c.setRole.input).mutation(h.setRole),
  setPassword: adminProcedure.input(c.setPassword.input).mutation(h.setPassword),
  ban: adminProcedure.input(c.ban.input).mutation(h.banUser),
  unban: adminProcedure.input(c.unban.input).mutation(h.unbanUser),
  revokeSessions: adminProcedure.input(c.revokeSessions.input).mutation(h.revokeSessions),
  remove: adminProcedure.input(c.remove.input).mutation(h.removeUser),
  impersonate: adminProcedure.input(c.impersonate.input).mutation(h.impersonate),
  stopImpersonating: authedProcedure.mutation(h.stopImpersonating),
});
