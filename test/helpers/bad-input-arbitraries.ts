// fast-check generators of bad input for the REST routes (test/helpers/bad-input.ts runs them): strings of
// every kind (NUL, lone surrogates, SQL and LIKE metacharacters, huge), JSON bodies built from a model of
// each field's valid and refused values with extra, duplicated and mass-assigned keys, bodies that are no
// JSON object at all, path segments and query strings, raw and percent-encoded.
import fc from "fast-check";

export const INT32_MAX = 2 ** 31 - 1;

// ---- values ----

export const j = (value: unknown) => JSON.stringify(value);
export const times = (s: string, n: number) => s.repeat(n);

/** Any UTF-16 code unit, lone surrogates and NUL included (fast-check's own units never give lone surrogates). */
const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
const NASTY = [
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfff",
  "\ud83d\ude00",
  "\u202e\u202d",
  "\ufeff",
  "\uffff",
  "' OR 1=1 --",
  "'; DROP TABLE restriction_cohorts; --",
  '" OR ""="',
  "%",
  "_",
  "\\",
  "%_\\",
  "\\%",
  "$1",
  "::text",
  "NULL",
  "null",
  "undefined",
  "../../etc/passwd",
  "<script>alert(1)</script>",
  "__proto__",
  "constructor",
  "\t\n\r",
  " ",
];
export const nasty = fc.constantFrom(...NASTY);
/** Short strings of every kind: anything a caller might type or forge. */
export const text = (maxLength: number) =>
  fc.oneof(
    nasty,
    fc.string({ unit: anyCodeUnit, maxLength: Math.min(maxLength, 40) }),
    fc.string({ unit: "grapheme", maxLength: Math.min(maxLength, 40) }),
    fc.string({ unit: "grapheme-ascii", minLength: maxLength - 5, maxLength }),
  );
/** Text the service stores as given: no NUL and no lone surrogate (both refused naming the field). */
export const storable = (s: string) => !s.includes("\u0000") && s.isWellFormed();
/** Length as the service's schemas count it: in code points (an emoji is one), not UTF-16 units. */
export const codePoints = (s: string) => [...s].length;
export const nonBlank = (s: string) => s.trim().length > 0;

/** JSON text nested `depth` levels deep, as arrays or objects. */
export const deepJson = fc
  .tuple(fc.integer({ min: 50, max: 20_000 }), fc.boolean())
  .map(([depth, arrays]) => (arrays ? `${times("[", depth)}1${times("]", depth)}` : `${times('{"a":', depth)}1${times("}", depth)}`));

/** Any JSON value, as text: valid by accident at times, so never counted as a bad field's value. */
export const garbageJson: fc.Arbitrary<string> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map(j),
  text(60).map(j),
  fc.constantFrom("1e400", "-1e400", "1e-400", "-0", "123456789012345678901234567890", "true", "null", "[]", "{}"),
  deepJson,
  fc.integer({ min: 1_000, max: 200_000 }).map((n) => j(times("x", n))),
);

// ---- bodies ----

/** A field of a JSON body (or of a query): valid values, and values the route must refuse naming the field. */
export type FieldModel = {
  required?: boolean;
  /** JSON text of acceptable values. */
  valid: fc.Arbitrary<string>;
  /** JSON text of refused values; `late` ones are refused by the handler, after the schema. */
  invalid: fc.Arbitrary<{ json: string; late?: boolean }>;
};
export type BodyModel = Record<string, FieldModel>;

export const bad = (...values: unknown[]) => fc.constantFrom(...values.map((v) => ({ json: j(v) })));
export const badLate = (...values: unknown[]) => fc.constantFrom(...values.map((v) => ({ json: j(v), late: true })));
export const validOf = (...values: unknown[]) => fc.constantFrom(...values.map(j));

/** Keys a caller might add to take over fields the service sets itself (mass assignment), and odd names. */
const extraKey = fc.constantFrom(
  "id",
  "status",
  "activatedAt",
  "userId",
  "isActive",
  "allGatesMet",
  "logLive",
  "blockedBy",
  "role",
  "cohortId",
  "deletedAt",
  "readAt",
  "constructor",
  "toString",
  "",
  "a.b",
  "\u0000",
);

type Payload = { text?: string; contentType?: string };
export type BodyCase = Payload & { bad: string[]; late: string[] };

function entriesText(entries: [string, string][]) {
  return `{${entries.map(([k, v]) => `${j(k)}:${v}`).join(",")}}`;
}

/** A JSON object body from the model: each field valid, refused or missing, plus extra and duplicated keys. */
function objectBody(model: BodyModel): fc.Arbitrary<BodyCase> {
  const names = Object.keys(model);
  const choice = (field: FieldModel) =>
    fc.oneof(
      { weight: 10, arbitrary: field.valid.map((json) => ({ kind: "valid" as const, json, late: false })) },
      { weight: 2, arbitrary: field.invalid.map((v) => ({ kind: "bad" as const, json: v.json, late: v.late ?? false })) },
      { weight: 1, arbitrary: fc.constant({ kind: "omit" as const, json: "", late: false }) },
    );
  return fc
    .record({
      values: fc.record(Object.fromEntries(names.map((name) => [name, choice(model[name]!)]))),
      extras: fc.array(fc.tuple(extraKey, garbageJson), { maxLength: 2 }),
      // Earlier duplicates of a field: JSON.parse keeps the last, so they must not matter.
      shadowed: fc.array(fc.tuple(fc.constantFrom(...names), garbageJson), { maxLength: 2 }),
      contentType: fc.constantFrom("application/json", "application/json", "application/json; charset=utf-8"),
    })
    .map(({ values, extras, shadowed, contentType }) => {
      const entries: [string, string][] = [...extras.filter(([k]) => !names.includes(k))];
      const badFields: string[] = [];
      const late: string[] = [];
      for (const name of names) {
        const v = values[name]!;
        if (v.kind === "omit") {
          if (model[name]!.required) badFields.push(name);
          continue;
        }
        for (const [key, json] of shadowed) if (key === name) entries.push([key, json]);
        entries.push([name, v.json]);
        if (v.kind === "bad") (v.late ? late : badFields).push(name);
      }
      return { text: entriesText(entries), contentType, bad: badFields, late };
    });
}

/** Bodies that are no JSON object at all, or that Fastify must refuse before any route runs. */
const strangeBody: fc.Arbitrary<BodyCase> = fc.oneof(
  // JSON, but not an object: arrays where objects belong, scalars, deep nesting.
  fc
    .oneof(
      fc.constantFrom("[]", "[{}]", '[{"cohortNumber":1,"proIds":["a"]}]', '"body"', "42", "-0", "true", "1e400"),
      fc.array(garbageJson, { maxLength: 3 }).map((items) => `[${items.join(",")}]`),
      deepJson.filter((s) => s.startsWith("[")),
    )
    .map((text) => ({ text, contentType: "application/json", bad: [], late: [] })),
  // Not JSON.
  fc
    .constantFrom(
      '{"cohortNumber": 5,',
      "{cohortNumber: 5}",
      "{'a': 1}",
      '{"a":1}}',
      "\ufeff{}x",
      "NaN",
      "undefined",
      '{"a":"\\ud800\\u"}',
      '{"__proto__":{"isAdmin":true}}',
      '{"a":{"__proto__":{"x":1}}}',
    )
    .map((text) => ({ text, contentType: "application/json", bad: [], late: [] })),
  // JSON under another content type: text/plain arrives as a string (no object), the others are refused.
  fc
    .constantFrom("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml")
    .map((contentType) => ({ text: "{}", contentType, bad: [], late: [] })),
);

/** Over the body size limit: the service must refuse it before parsing (413). */
const tooLarge: fc.Arbitrary<BodyCase> = fc.constant({
  text: j({ proIds: [times("x", 2_500_000)] }),
  contentType: "application/json",
  bad: [],
  late: [],
});

export function bodyCases(model: BodyModel | undefined): fc.Arbitrary<BodyCase | undefined> {
  const noBody = fc.constant(undefined);
  const empty: fc.Arbitrary<BodyCase> = fc.constantFrom<BodyCase>(
    { text: "", contentType: "application/json", bad: [], late: [] },
    { text: "null", contentType: "application/json", bad: [], late: [] },
    { text: "{}", contentType: "application/json", bad: [], late: [] },
  );
  // A route without body fields ignores a body, but Fastify still parses one.
  const object = model ? objectBody(model) : fc.dictionary(extraKey, garbageJson, { maxKeys: 3 }).map(objectCase);
  return fc.oneof(
    { weight: 2, arbitrary: noBody },
    { weight: 2, arbitrary: empty },
    { weight: 16, arbitrary: object },
    { weight: 6, arbitrary: strangeBody },
    { weight: 1, arbitrary: tooLarge },
  );
}

function objectCase(values: Record<string, string>): BodyCase {
  return { text: entriesText(Object.entries(values)), contentType: "application/json", bad: [], late: [] };
}

// ---- paths and query strings ----

/** Percent-encodes every byte of the UTF-8 form but [A-Za-z0-9_~-]; lone surrogates become U+FFFD, as on the server. */
function encode(s: string): { raw: string; decoded: string } {
  const bytes = Buffer.from(s, "utf8");
  let raw = "";
  for (const byte of bytes) {
    const c = String.fromCharCode(byte);
    raw += /[A-Za-z0-9_~-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return { raw, decoded: bytes.toString("utf8") };
}

export type Segment = { raw: string; decoded: string | null; known: boolean };

/** A path parameter: a real record's id, an unknown but decodable one, or a malformed / over-long one. */
export function segments(known: string[], uuids: boolean): fc.Arbitrary<Segment> {
  const decodable = fc
    .oneof(text(300), fc.uuid(), fc.string({ unit: "grapheme", minLength: 150, maxLength: 300 }))
    // Not "", "." or "..", which the router resolves, nor "cohorts", a static path of its own.
    .filter((s) => s.length > 0 && !/^\.+$/.test(s) && s !== "cohorts")
    .map((s) => ({ ...encode(s), known: false }))
    .filter((s) => s.raw.length <= 3000);
  const arbitraries: fc.WeightedArbitrary<Segment>[] = [
    { weight: 4, arbitrary: decodable },
    { weight: 2, arbitrary: nasty.map((s) => ({ ...encode(s), known: false })) },
    { weight: 2, arbitrary: fc.uuid().map((u) => ({ raw: u, decoded: u, known: false })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom("%", "%zz", "%ED%A0%80", "%C0%AF", "%FF", "%E0%A4%A", "abc%", "%%41", "%F0%9F%98")
        .map((raw) => ({ raw, decoded: null, known: false })),
    },
    { weight: 1, arbitrary: fc.integer({ min: 5001, max: 9000 }).map((n) => ({ raw: times("a", n), decoded: null, known: false })) },
  ];
  if (known.length) {
    arbitraries.push({ weight: 3, arbitrary: fc.constantFrom(...known).map((id) => ({ ...encode(id), known: true })) });
    // PostgreSQL reads a UUID in any case.
    if (uuids)
      arbitraries.push({ weight: 1, arbitrary: fc.constantFrom(...known).map((id) => ({ ...encode(id.toUpperCase()), known: true })) });
  }
  return fc.oneof(...arbitraries);
}

export type QueryCase = { text: string; bad: string[] };
/** A query string's keys: valid values, and values the route must refuse naming the key. */
/**
 * A query key's values. `required`: leaving the key out is refused. `exact`: every value the key can take is
 * in `valid` or `invalid`, so no raw junk is generated for it (an enum, a number or a date, where junk is
 * simply invalid and says nothing new).
 */
export type QueryModel = Record<
  string,
  { valid: fc.Arbitrary<string>; invalid?: fc.Arbitrary<string>; required?: boolean; exact?: boolean }
>;

export const PAGE_VALUES = [
  "0",
  "-1",
  "1",
  "2",
  "2.5",
  "100",
  "101",
  "1e309",
  "-1e309",
  "NaN",
  "Infinity",
  "-Infinity",
  "9007199254740993",
  "2147483648",
  "0x10",
  " 5 ",
  "",
  "abc",
  "-0",
  "1e2",
  "\u0663",
];

/** A query string: the model's keys with valid or refused values, repeated keys, odd keys, raw %-junk. */
export function queryCases(model: QueryModel): fc.Arbitrary<QueryCase> {
  const names = Object.keys(model);
  const junkNames = names.filter((name) => !model[name]!.exact);
  const required = names.filter((name) => model[name]!.required);
  const pair = fc.oneof(
    ...names.map((name) => model[name]!.valid.map((v) => ({ key: name, raw: encode(v).raw, bad: false }))),
    ...names.flatMap((name) => {
      const invalid = model[name]!.invalid;
      return invalid ? [invalid.map((v) => ({ key: name, raw: encode(v).raw, bad: true }))] : [];
    }),
    // Raw, as a client might send them: odd keys, repeated keys, %-escapes that do not decode.
    fc
      .tuple(
        fc.constantFrom("__proto__", "constructor", "page%5B%5D", "search%5B0%5D", "", "%00", "a%zz", ...junkNames),
        fc.constantFrom("%", "%zz", "%ED%A0%80", "=", "", "%C0%AF"),
      )
      .map(([key, raw]) => ({ key, raw, bad: false })),
    fc.tuple(extraKey, text(20)).map(([key, v]) => ({ key: encode(key).raw, raw: encode(v).raw, bad: false })),
  );
  return fc.array(pair, { maxLength: 6 }).map((pairs) => ({
    text: pairs.map((p) => `${p.key}=${p.raw}`).join("&"),
    bad: [...new Set([...pairs.filter((p) => p.bad).map((p) => p.key), ...required.filter((name) => !pairs.some((p) => p.key === name))])],
  }));
}
