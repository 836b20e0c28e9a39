// The project's own folder, whether this code runs from its TypeScript sources (tsx, vitest) or compiled
// into build/ (`npm start`, see tsconfig.build.json): the files that live beside the code and are not
// compiled (db/migrations, console/dist) are found from it.
import { basename, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const db = dirname(fileURLToPath(import.meta.url));
export const projectRoot = basename(dirname(db)) === "build" ? dirname(dirname(db)) : dirname(db);
