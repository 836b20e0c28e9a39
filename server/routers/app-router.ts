// The type apps import to call the service with a typed tRPC client (`import type { AppRouter }`). It is made
// from the procedures' contracts (contract.ts in each router folder) and the error shape the server formats,
// never from the running router, so an app's type-check loads zod schemas and not the server's database,
// auth and HTTP modules (test/consumer measures it). server/routers/index.ts checks at compile time that the
// running router has exactly these procedures, inputs, answers and errors.
import type { TRPC_ERROR_CODE_KEY, TRPC_ERROR_CODE_NUMBER, TRPCBuiltRouter } from "@trpc/server";
import type { ErrorDetails, ErrorKind } from "../errors/errors.js";
import type { apiKeysContract } from "./api-keys/contract.js";
import type { auditContract } from "./audit/contract.js";
import type { ProceduresOf } from "./contract.js";
import type { deliveriesContract } from "./deliveries/contract.js";
import type { notificationsContract } from "./notifications/contract.js";
import type { restrictionContract } from "./restriction/contract.js";
import type { settingsContract } from "./settings/contract.js";
import type { usersContract } from "./users/contract.js";

/** What a tRPC error carries (server/trpc/init.ts's errorFormatter): the domain's kind and field details. */
export type AppErrorShape = {
  message: string;
  code: TRPC_ERROR_CODE_NUMBER;
  data: {
    code: TRPC_ERROR_CODE_KEY;
    httpStatus: number;
    path: string | undefined;
    appCode: ErrorKind;
    details: ErrorDetails | null;
  };
};

type Root = { ctx: object; meta: object; errorShape: AppErrorShape; transformer: true };

export type AppRouter = TRPCBuiltRouter<
  Root,
  {
    restriction: ProceduresOf<typeof restrictionContract>;
    notifications: ProceduresOf<typeof notificationsContract>;
    audit: ProceduresOf<typeof auditContract>;
    apiKeys: ProceduresOf<typeof apiKeysContract>;
    deliveries: ProceduresOf<typeof deliveriesContract>;
    settings: ProceduresOf<typeof settingsContract>;
    users: ProceduresOf<typeof usersContract>;
  }
>;
