// A Drizzle query runs only when awaited (or its .then called): a builder left as a statement of its own
// never reaches the database, and an `execute()` left so runs with nobody to see it fail. Biome's
// noFloatingPromises cannot see this (it has no types from drizzle-orm), so this test reads the sources'
// syntax: every statement that is a query on a `db` or `tx` must be awaited, returned, or handled by
// .then/.catch. Issue S.9.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const QUERY_METHODS = new Set(["insert", "update", "delete", "select", "selectDistinct", "execute", "query"]);
const HANDLED = new Set(["then", "catch", "finally"]);
/** The receiver's last name: `db`, `ctx.db`, `t().db.db`, `tx`, `trx`. */
const DATABASE = /(^|\.)(db|tx|trx)$/;

type Finding = { file: string; line: number; text: string };

/** The method names of a call chain, first call first, and the expression the chain starts from. */
function chainOf(expression: ts.Expression): { methods: string[]; receiver: ts.Expression } {
  const methods: string[] = [];
  let node: ts.Expression = expression;
  while (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
    methods.unshift(node.expression.name.text);
    node = node.expression.expression;
    while (ts.isParenthesizedExpression(node) || ts.isNonNullExpression(node) || ts.isAsExpression(node)) node = node.expression;
  }
  return { methods, receiver: node };
}

/** Callees that drop what their callback returns: a query returned to them never runs. */
const DISCARDS = new Set(["setTimeout", "setInterval", "setImmediate", "queueMicrotask", "forEach", "on", "once", "addListener"]);

const calleeName = (call: ts.CallExpression) =>
  ts.isIdentifier(call.expression) ? call.expression.text : ts.isPropertyAccessExpression(call.expression) ? call.expression.name.text : "";

/**
 * Queries on a database handle that nobody awaits: a statement of its own (bare or `void`), or the value of
 * an arrow callback whose caller drops it (`setTimeout(() => db.update(…))`, `xs.forEach((x) => tx.insert(…))`).
 */
function unawaitedQueries(file: string, text: string): Finding[] {
  // Parsing is the cost: a file that calls none of the query methods needs none.
  if (!/\.(insert|update|delete|select|selectDistinct|execute|query)\(/.test(text)) return [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const findings: Finding[] = [];
  const isQuery = (expression: ts.Expression): boolean => {
    while (ts.isVoidExpression(expression) || ts.isParenthesizedExpression(expression)) expression = expression.expression;
    if (!ts.isCallExpression(expression)) return false;
    const { methods, receiver } = chainOf(expression);
    const first = methods[0];
    return !!first && QUERY_METHODS.has(first) && !methods.some((m) => HANDLED.has(m)) && DATABASE.test(receiver.getText(source));
  };
  const report = (node: ts.Node) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    findings.push({ file, line: line + 1, text: node.getText(source).split("\n")[0]! });
  };
  const visit = (node: ts.Node) => {
    if (ts.isExpressionStatement(node) && isQuery(node.expression)) report(node);
    if (
      ts.isArrowFunction(node) &&
      !ts.isBlock(node.body) &&
      ts.isCallExpression(node.parent) &&
      node.parent.arguments.includes(node) &&
      DISCARDS.has(calleeName(node.parent)) &&
      isQuery(node.body)
    ) {
      report(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return findings;
}

const sources = ["server", "db", "test", "scripts"].flatMap((dir) => {
  try {
    return (readdirSync(join(root, dir), { recursive: true }) as string[])
      .filter((f) => /\.tsx?$/.test(f) && !f.includes("node_modules"))
      .map((f) => join(root, dir, f));
  } catch {
    return [];
  }
});

describe("Drizzle queries are awaited", () => {
  it("finds the statements it is meant to find, and passes what is handled", () => {
    const text = `
      async function f(db, tx, ctx) {
        db.insert(t).values(v);
        void tx.update(t).set(s).where(w);
        tx.delete(t);
        ctx.db.execute(sql\`select 1\`);
        await db.insert(t).values(v);
        db.update(t).set(s).then(() => {}, onError);
        return tx.delete(t);
        app.delete("/x", handler);
        map.delete(key);
        setTimeout(() => db.update(t).set(s), 10);
        rows.forEach((r) => tx.insert(t).values(r));
        await Promise.all(rows.map((r) => tx.insert(t).values(r)));
        setTimeout(() => void db.update(t).set(s).catch(onError), 10);
      }`;
    expect(unawaitedQueries("probe.ts", text).map((f) => f.line)).toEqual([3, 4, 5, 6, 12, 13]);
  });

  // Parsing every source takes seconds on a busy machine.
  it("no source leaves a query on db or tx unawaited", { timeout: 60_000 }, () => {
    expect(sources.length).toBeGreaterThan(100);
    const findings = sources.flatMap((file) => unawaitedQueries(relative(root, file), readFileSync(file, "utf8")));
    expect(findings).toEqual([]);
  });
});
