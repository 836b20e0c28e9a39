// Summarises a V8 .cpuprofile (from `npm run bench -- --cpu-prof`): self time by function and by package,
// so a profile can be read without DevTools. Usage: node --import tsx bench/profile-summary.ts FILE [TOP] [--last=S]
// --last=S counts only the profile's last S seconds: the load run of a server measured last (`--only=ofrep-eval`),
// without its start-up (module loading, migrations), which otherwise is a fifth of a short run's profile;
// --skip-last=S moves that window S seconds earlier (the REST run before the tRPC run of the same scenario).
import { readFileSync } from "node:fs";

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[] };

const args = process.argv.slice(2);
const lastArg = args.find((a) => a.startsWith("--last="));
const skipArg = args.find((a) => a.startsWith("--skip-last="));
const [file, topArg] = args.filter((a) => a !== lastArg && a !== skipArg);
if (!file) throw new Error("usage: profile-summary.ts FILE [TOP] [--last=S] [--skip-last=S]");
const lastUs = lastArg ? Number(lastArg.slice("--last=".length)) * 1e6 : Infinity;
// --skip-last=S: the window ends S seconds before the profile does (the run before the last one).
const skipUs = skipArg ? Number(skipArg.slice("--skip-last=".length)) * 1e6 : 0;
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const self = new Map<number, number>();
// Each sample's time since the profile began; with --last, samples before the window are left out.
const at: number[] = [];
profile.timeDeltas.reduce((t, d, i) => (at[i] = t + d), 0);
const end = at[at.length - 1] ?? 0;
profile.samples.forEach((id, i) => {
  const before = end - at[i]!;
  if (before >= skipUs && before <= skipUs + lastUs) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
// Percentages are of the busy time: idle samples (waiting for I/O) are left out.
for (const [id] of self) if (byId.get(id)!.callFrame.functionName === "(idle)") self.delete(id);
const total = [...self.values()].reduce((a, b) => a + b, 0);

/** The package a script belongs to: node_modules/<name> (or @scope/name), node: internals, or the project. */
function packageOf(url: string): string {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  if (url.startsWith("node:") || url === "") return "(node/v8)";
  return `(project) ${url.replace(/^file:\/\/.*?\/(server|db|bench)\//, "$1/")}`;
}

const fnSelf = new Map<string, number>();
const pkgSelf = new Map<string, number>();
/** Inclusive time per package: a sample counts once for every package on its stack. */
const pkgIncl = new Map<string, number>();
/** Inclusive time per function. */
const fnIncl = new Map<string, number>();
for (const [id, t] of self) {
  const n = byId.get(id)!;
  const key = `${n.callFrame.functionName || "(anonymous)"} ${packageOf(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
  fnSelf.set(key, (fnSelf.get(key) ?? 0) + t);
  const pkg = packageOf(n.callFrame.url).replace(/^\(project\) .*/, "(project)");
  pkgSelf.set(pkg, (pkgSelf.get(pkg) ?? 0) + t);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const frame = byId.get(cur)!.callFrame;
    const p = packageOf(frame.url).replace(/^\(project\) .*/, "(project)");
    if (!seen.has(p)) {
      seen.add(p);
      pkgIncl.set(p, (pkgIncl.get(p) ?? 0) + t);
    }
    const f = `${frame.functionName || "(anonymous)"} ${packageOf(frame.url)}:${frame.lineNumber + 1}`;
    if (!seen.has(f)) {
      seen.add(f);
      fnIncl.set(f, (fnIncl.get(f) ?? 0) + t);
    }
  }
}
const pct = (t: number) => `${((100 * t) / total).toFixed(1).padStart(5)} %`;
const show = (title: string, m: Map<string, number>, n: number) => {
  console.log(`\n${title}`);
  [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .forEach(([k, t]) => void console.log(`${pct(t)}  ${k}`));
};
console.log(`${file}: ${(total / 1e6).toFixed(1)} s busy (idle excluded)`);
show("self time by package", pkgSelf, 15);
show("inclusive time by package (on the stack)", pkgIncl, 15);
show("self time by function", fnSelf, top);
show("inclusive time by function", fnIncl, top);
