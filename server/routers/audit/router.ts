// The audit log: wiring only. Platform admins only.

import { listAuditEvents } from "../../audit/listing.js";
import { consistencyProof, currentCheckpoint, inclusionProof } from "../../audit/proofs.js";
import { adminProcedure, router } from "../../trpc/index.js";
import { auditContract as c } from "./contract.js";

export const auditRouter = router({
  list: adminProcedure.input(c.list.input).query(listAuditEvents),
  checkpoint: adminProcedure.query(({ ctx }) => currentCheckpoint(ctx.db)),
  inclusionProof: adminProcedure.input(c.inclusionProof.input).query(({ ctx, input }) => inclusionProof(ctx.db, input)),
  consistencyProof: adminProcedure.input(c.consistencyProof.input).query(({ ctx, input }) => consistencyProof(ctx.db, input)),
});
