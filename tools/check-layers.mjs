#!/usr/bin/env node
import { execFileSync } from "node:child_process";
// npm run lint runs this: the layering of docs/architecture.md, checked from the TypeScript imports themselves.
// It fails on an import circle in server/ or db/, on an import up a floor that is not one of the named exceptions,
// on bench/ importing test/, and on a hand-written source file over 400 lines. `--json` prints the graph's findings.
import { readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import ts from "typescript";

const root = join(dirname(new URL(import.meta.url).pathname), "..");

// Floors, lowest first; a file may import its own floor or any below. The first matching prefix wins.
export const FLOORS = [
  [0, "db/"],
  [1, "server/http/"],
  [1, "server/errors/"],
  [1, "server/observability/"],
  [1, "server/config.ts"],
  [1, "server/version.ts"],
  // The audit log's tree, proofs and notes: pure code the offline verifier (tools/audit-verify.ts) shares.
  [1, "server/audit/log/"],
  [2, "server/audit/"],
  // Apple's rule for VAPID_SUBJECT: pure, and read by the configuration at start.
  [1, "server/push/vapid-subject.ts"],
  [2, "server/memory/"],
  [2, "server/live/"],
  [2, "server/push/"],
  [2, "server/auth/"],
  [3, "server/restriction/"],
  [3, "server/notifications/"],
  [3, "server/accounts/"],
  [5, "server/producers/routes.ts"],
  [3, "server/producers/"],
  // The context the domain functions read: plain data, built by the doors.
  [3, "server/context.ts"],
  [4, "server/routers/"],
  // tRPC's procedure builders (init, middleware) sit with the routers that declare procedures with them;
  // the door that serves them over HTTP is a floor up.
  [5, "server/trpc/door.ts"],
  [5, "server/trpc/answer-text.ts"],
  [4, "server/trpc/"],
  [5, "server/rest/"],
  [5, "server/ofrep/"],
  [6, "server/"],
];

// Imports up a floor that are there on purpose; docs/architecture.md gives each one's reason.
export const EXCEPTIONS = [];

export function floorOf(file) {
  for (const [floor, prefix] of FLOORS) if (file === prefix || file.startsWith(prefix)) return floor;
  return undefined;
}

function tracked(patterns) {
  const out = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", ...patterns], {
    cwd: root,
    encoding: "utf8",
  });
  return out.split("\n").filter(Boolean);
}

function importsOf(file) {
  const text = readFileSync(join(root, file), "utf8");
  const found = ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
  const out = [];
  for (const spec of found) {
    if (!spec.startsWith(".")) continue;
    let target = normalize(join(dirname(file), spec));
    target = target.replace(/\.js$/, ".ts").replace(/\.jsx$/, ".tsx");
    out.push(target);
  }
  return out;
}

// Tarjan's strongly connected components: every component of more than one file is a circle.
function circles(graph) {
  let index = 0;
  const stack = [];
  const on = new Set();
  const idx = new Map();
  const low = new Map();
  const found = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const part = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        part.push(w);
      } while (w !== v);
      if (part.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(part.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

/** The problems of one import graph (file -> the files it imports), by the floors above. */
export function layeringProblems(graph) {
  const problems = [];
  for (const part of circles(graph)) problems.push(`import circle of ${part.length} files: ${part.join(", ")}`);
  const up = [];
  for (const [file, targets] of graph) {
    const from = floorOf(file);
    for (const target of targets) {
      const to = floorOf(target);
      if (from === undefined || to === undefined || to <= from) continue;
      const edge = `${file} -> ${target}`;
      up.push(edge);
      if (!EXCEPTIONS.some(([e]) => e === edge)) problems.push(`import up a floor (${from} -> ${to}): ${edge}`);
    }
  }
  for (const [edge] of EXCEPTIONS) if (!up.includes(edge)) problems.push(`named exception no longer exists, remove it: ${edge}`);
  return { problems, up };
}

export function check() {
  const files = tracked(["server", "db"]).filter((f) => f.endsWith(".ts"));
  const graph = new Map(files.map((f) => [f, importsOf(f)]));
  const { problems, up } = layeringProblems(graph);

  for (const file of tracked(["bench"]).filter((f) => /\.(ts|mjs|js)$/.test(f)))
    for (const target of importsOf(file)) if (target.startsWith("test/")) problems.push(`bench/ imports test/: ${file} -> ${target}`);

  const sources = tracked(["server", "db", "console", "test", "tools", "bench", "client-example"]).filter(
    (f) => /\.(ts|tsx|mjs)$/.test(f) && !f.includes("/migrations/"),
  );
  for (const file of sources) {
    const lines = readFileSync(join(root, file), "utf8").split("\n").length - 1;
    if (lines > 400) problems.push(`${file} has ${lines} lines (at most 400)`);
  }
  return { problems, up, files: files.length };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { problems, up, files } = check();
  if (process.argv.includes("--json")) console.log(JSON.stringify({ problems, up }, null, 2));
  for (const p of problems) console.error(p);
  console.log(`layers: ${files} files in server/ and db/, ${up.length} imports up a floor, ${problems.length} problems`);
  process.exit(problems.length ? 1 : 0);
}
