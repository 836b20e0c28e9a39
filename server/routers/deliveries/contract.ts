// The deliveries procedures' public shapes (server/routers/contract.ts): kind, input, answer.

import { recentEventsInput, recentEventsOutput } from "../../notifications/delivery-schemas.js";
import { query } from "../contract.js";

export const deliveriesContract = {
  recent: query(recentEventsOutput, recentEventsInput),
};
