// Every pointer into the docs resolves (issue AA): a link `[..](file.md#anchor)` in a Markdown file, a
// `docs/<file>.md#anchor` or `README.md#anchor` in any file (code comments cite sections so), and a section
// named in quotes after its file (`docs/scaling.md "Reads from memory"`: a heading, or a bold row label such
// as guarantees.md's, or the start of one). When a section moves or is renamed, this names every pointer left
// behind, so a reader never lands on the top of the wrong page.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, test } from "vitest";

const ROOT = new URL("../..", import.meta.url).pathname;

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/`/g, "")
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

/** The anchors of a Markdown file's headings (outside code fences), repeats numbered as GitHub does. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** What a quoted title may name: the anchors of the headings, and the bold labels (`**A promise.**`). */
function titlesOf(markdown: string): string[] {
  const bold = [...markdown.matchAll(/\*\*([^*\n]+?)\.?\*\*/g)].map((match) => slug(match[1]!));
  return [...anchorsOf(markdown), ...bold];
}

type Pointer = { from: string; target: string; anchor?: string; title?: string };

/** The pointers one file holds; `target` is a path from the repository's root. */
function pointersIn(file: string, text: string): Pointer[] {
  const pointers: Pointer[] = [];
  if (file.endsWith(".md")) {
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const href = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // https:, mailto:
      const [path = "", anchor] = href.split("#");
      const target = path === "" ? file : normalize(join(dirname(file), path));
      pointers.push({ from: file, target, anchor: anchor || undefined });
    }
  }
  for (const match of text.matchAll(/(?<![\w/.-])((?:docs\/[\w-]+|README)\.md)#([\w-]+)/g)) {
    pointers.push({ from: file, target: match[1]!, anchor: match[2]! });
  }
  for (const match of text.matchAll(/(?<![\w/.-])(docs\/[\w-]+\.md|README(?:\.md)?),? "([^"\n]{3,80})"/g)) {
    const path = match[1]!;
    pointers.push({ from: file, target: path === "README" ? "README.md" : path, title: match[2]! });
  }
  return pointers;
}

const SCANNED = /\.(md|ts|tsx|mjs|js|sql)$/;
/** Applied migrations are history: their comments stay as they were written. This file's pointers are examples. */
const FROZEN = /^(db\/migrations\/|test\/unit\/docs-links\.test\.ts$)/;

/** The repository's files, new ones not yet added included (a new page is checked before its commit). */
function trackedFiles(): string[] {
  const out = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" });
  return out.split("\n").filter((f) => (SCANNED.test(f) || f === ".ci/run") && !FROZEN.test(f));
}

/** Every pointer in the repository that lands nowhere, as `from -> target#anchor`. */
function brokenPointers(): string[] {
  const anchorCache = new Map<string, Set<string>>();
  const anchors = (target: string) => {
    let found = anchorCache.get(target);
    if (!found) {
      found = anchorsOf(readFileSync(join(ROOT, target), "utf8"));
      anchorCache.set(target, found);
    }
    return found;
  };
  const titles = (target: string) => titlesOf(readFileSync(join(ROOT, target), "utf8"));
  const broken: string[] = [];
  for (const file of trackedFiles()) {
    if (!existsSync(join(ROOT, file))) continue;
    for (const pointer of pointersIn(file, readFileSync(join(ROOT, file), "utf8"))) {
      const where = `${pointer.from} -> ${relative(ROOT, join(ROOT, pointer.target))}`;
      if (!existsSync(join(ROOT, pointer.target))) {
        broken.push(`${where} (no such file)`);
      } else if (pointer.target.endsWith(".md") && pointer.anchor && !anchors(pointer.target).has(pointer.anchor)) {
        broken.push(`${where}#${pointer.anchor}`);
      } else if (pointer.title && !titles(pointer.target).some((title) => title.startsWith(slug(pointer.title!)))) {
        broken.push(`${where} "${pointer.title}"`);
      }
    }
  }
  return broken;
}

describe("links into the docs", () => {
  test("a heading's anchor is GitHub's", () => {
    expect(slug("When a reader's key is refused")).toBe("when-a-readers-key-is-refused");
    expect(slug("Restriction administration (`/api/admin/restriction`)")).toBe("restriction-administration-apiadminrestriction");
    expect([...anchorsOf("# A\n```\n# not a heading\n```\n## A\n")]).toEqual(["a", "a-1"]);
    expect(titlesOf("## `x.ts`: a thing\n| **A promise.** Why |")).toEqual(["xts-a-thing", "a-promise"]);
  });

  test("the three kinds of pointer are found, and nothing else", () => {
    const text = 'see [x](api.md#gates), [y](#top), [z](https://example.com#a), docs/scaling.md#reads and docs/guarantees.md "A title"';
    expect(pointersIn("docs/operators.md", text)).toEqual([
      { from: "docs/operators.md", target: "docs/api.md", anchor: "gates" },
      { from: "docs/operators.md", target: "docs/operators.md", anchor: "top" },
      { from: "docs/operators.md", target: "docs/scaling.md", anchor: "reads" },
      { from: "docs/operators.md", target: "docs/guarantees.md", title: "A title" },
    ]);
  });

  test("every pointer in the repository lands on a file and, when it names one, a heading", () => {
    expect(brokenPointers()).toEqual([]);
  });
});

/** The source paths the docs name in backquotes (`server/restriction/cohorts.ts`), without patterns. */
function namedPaths(markdown: string): string[] {
  const found = markdown.matchAll(/`((?:server|db|test|console|bench|tools|client-example|patches)\/[\w./-]+)`/g);
  return [...found].map((m) => m[1]!);
}

describe("paths in the docs", () => {
  test("every file or folder the docs name exists, so a newcomer following them finds the code", () => {
    const docs = [
      "README.md",
      "BENCHMARKS.md",
      ...execFileSync("git", ["ls-files", "docs/*.md"], { cwd: ROOT, encoding: "utf8" }).split("\n"),
    ];
    const missing = docs
      .filter(Boolean)
      .flatMap((doc) => namedPaths(readFileSync(join(ROOT, doc), "utf8")).map((path) => ({ doc, path })))
      // Screenshots are written by the browser tests, not kept in git.
      .filter(({ path }) => !path.startsWith("test/browser/screenshots") && !existsSync(join(ROOT, path)))
      .map(({ doc, path }) => `${doc}: ${path}`);
    expect(missing).toEqual([]);
  });
});
