// The deliveries procedures' public shapes (server/routers/contract.ts): kind, input, answer.
import { query } from "../contract.js";
import { recentEventsInput, recentEventsOutput } from "./schemas.js";

export const deliveriesContract = {
  recent: query(recentEventsOutput, recentEventsInput),
};
