// Seeds the bench database fast: users and sessions through the product's better-auth (so the product's
// own session lookup accepts them), everything bulky with `insert … select generate_series` in PostgreSQL.
import { createHash } from "node:crypto";
import type postgres from "postgres";
import { createDb } from "../db/client.js";
import { API_KEY_PREFIX_LENGTH } from "../db/schema/index.js";
import { createAuth } from "../server/auth/better-auth.js";
import { mapWithConcurrency } from "../server/push/concurrency.js";

export const BENCH_PASSWORD = "bench-password-123";
export const ADMIN_EMAIL = "bench-admin@bench.test";
/**
 * The service API key the OFREP scenarios present (X-API-Key), the same in every run: `rk_` and 43
 * base64url characters, as the service makes them (server/auth/api-keys.ts), with the scope flags:read.
 */
export const BENCH_API_KEY = `rk_${createHash("sha256").update("restriction-notifications bench key").digest("base64url")}`;

export type SeededUser = { id: string; email: string; token: string };

export type Seeded = {
  admin: SeededUser;
  /** The user whose inbox every notifications scenario reads. */
  hot: SeededUser;
  others: SeededUser[];
  proIds: string[];
  cohortIds: string[];
  /** The secret of the seeded API key (BENCH_API_KEY). */
  apiKey: string;
};

export type SeedShape = {
  users: number;
  pros: number;
  cohortSize: number;
};

/**
 * Signs up `count` users and one platform admin with auth.api.signUpEmail, as the service's sign-up
 * endpoint does: real users, credential accounts (scrypt password hashes) and sessions with tokens that
 * the bearer plugin accepts.
 */
async function signUpUsers(databaseUrl: string, secret: string, count: number) {
  const handle = await createDb({ databaseUrl, maxConnections: 4 });
  try {
    const auth = createAuth({
      db: handle.db,
      secret,
      baseUrl: "http://127.0.0.1:3000",
      trustedOrigins: ["http://127.0.0.1:3000"],
      platformAdminEmails: [ADMIN_EMAIL],
    });
    const emails = [ADMIN_EMAIL, ...Array.from({ length: count }, (_, i) => `user-${String(i).padStart(3, "0")}@bench.test`)];
    const made = await mapWithConcurrency(emails, 4, async (email): Promise<SeededUser> => {
      const res = await auth.api.signUpEmail({ body: { name: email.split("@")[0]!, email, password: BENCH_PASSWORD } });
      if (!res.token) throw new Error(`sign-up of ${email} returned no session token`);
      return { id: res.user.id, email, token: res.token };
    });
    return { admin: made[0]!, users: made.slice(1) };
  } finally {
    await handle.close();
  }
}

export async function seedBase(sql: postgres.Sql, databaseUrl: string, secret: string, shape: SeedShape): Promise<Seeded> {
  const { admin, users } = await signUpUsers(databaseUrl, secret, shape.users);
  // Other devices and past sign-ins: 100 more sessions per user, a tenth of them expired, as the service
  // stores them (random 32-character id, the SHA-256 in hex of a random token, expiry 7 days after sign-in).
  // The session lookup is a search among 10,000 tokens, not among 101.
  await sql`
    insert into sessions (id, token, user_id, expires_at, ip_address, user_agent, created_at, updated_at)
    select substr(md5(random()::text || u.id || i), 1, 32), encode(sha256(convert_to(md5(random()::text || i || u.id), 'UTF8')), 'hex'), u.id,
           now() + interval '7 days' - (i % 10) * interval '1 day', '127.0.0.1', 'BenchBrowser/' || i,
           now() - (i % 10) * interval '1 day', now() - (i % 10) * interval '1 day'
    from users u cross join generate_series(1, 100) i`;

  const pros = await seedPros(sql, shape);
  const apiKey = await seedApiKey(sql, admin);
  return { admin, hot: users[0]!, others: users.slice(1), ...pros, apiKey };
}

/** Pros, their stored statuses, cohorts with a passing gate check, communication logs. */
export async function seedPros(sql: postgres.Sql, shape: Omit<SeedShape, "users">): Promise<{ proIds: string[]; cohortIds: string[] }> {
  // 10,000 pros; every other one has a stored restriction status (a quarter of those active), so the
  // pro-status scenario reads both a stored row and the "never set" default.
  await sql`
    insert into pros (id, name)
    select 'pro-' || lpad(i::text, 5, '0'), 'Bench Pro ' || i from generate_series(1, ${shape.pros}::int) i`;
  await sql`
    insert into pro_restriction_status (pro_id, restriction_active)
    select 'pro-' || lpad(i::text, 5, '0'), i % 4 = 0 from generate_series(2, ${shape.pros}::int, 2) i`;

  // Cohorts of cohortSize consecutive pros, each with a passing gate check so it can be activated.
  const cohorts = Math.floor(shape.pros / shape.cohortSize);
  const cohortRows = await sql<{ id: string }[]>`
    insert into restriction_cohorts (cohort_number, pro_ids)
    select c, array(select 'pro-' || lpad(i::text, 5, '0')
                    from generate_series((c - 1) * ${shape.cohortSize}::int + 1, c * ${shape.cohortSize}::int) i)
    from generate_series(1, ${cohorts}::int) c
    order by c
    returning id`;
  await sql`
    insert into gate_checks (cohort_id, response_rate, comparisons_done, log_live, legal_signoff, all_gates_met)
    select id, 0.75, 60, true, true, true from restriction_cohorts`;
  await sql`
    insert into communication_logs (pro_id, user_id, channel)
    select 'pro-' || lpad((1 + i % ${shape.pros}::int)::text, 5, '0'), null, case when i % 2 = 0 then 'sms' else 'email' end
    from generate_series(1, 10000) i`;

  return {
    proIds: Array.from({ length: shape.pros }, (_, i) => `pro-${String(i + 1).padStart(5, "0")}`),
    cohortIds: cohortRows.map((r) => r.id),
  };
}

/**
 * The bench's service API key, inserted as the service stores one (server/auth/api-keys.ts): the secret's
 * hex SHA-256 and its first characters, scope flags:read (or `scopes`), named "bench", made by `creator`; beside 99 other services' keys
 * (some revoked), so the lookup by hash searches an index as it would in a deployment. Returns the secret.
 */
export async function seedApiKey(
  sql: postgres.Sql,
  creator: { id: string; email: string },
  scopes: readonly string[] = ["flags:read"],
): Promise<string> {
  const secret = BENCH_API_KEY;
  await sql`
    insert into api_keys (name, producer, scopes, prefix, secret_hash, created_by_id, created_by_email, revoked_at)
    select 'service ' || i, 'service ' || i, case when i % 2 = 0 then array['flags:read'] else array['notifications:write'] end,
           'rk_' || substr(md5(i::text), 1, 8), encode(sha256(convert_to('other key ' || i || random(), 'UTF8')), 'hex'),
           ${creator.id}, ${creator.email}, case when i % 10 = 0 then now() end
    from generate_series(1, 99) i`;
  await sql`
    insert into api_keys (name, producer, scopes, prefix, secret_hash, created_by_id, created_by_email)
    values ('bench', 'bench', ${[...scopes]}::text[], ${secret.slice(0, API_KEY_PREFIX_LENGTH)},
            ${createHash("sha256").update(secret).digest("hex")}, ${creator.id}, ${creator.email})`;
  return secret;
}

/**
 * Replaces every notification with `total` rows: the hot user owns `hotRows` of them, spread evenly
 * through the table (every total/hotRows-th row, as a user's notifications arrive among everyone else's),
 * the other users share the rest. Ids are random UUIDs; dateCreated rises with the row number.
 * Per row, from a hash of its number: 8 event types over the 6 categories, 70 % read, 2 % soft-deleted,
 * 5 % with "refund" in the body (the search scenario), half with a url in data, 1 % with data that is not an object.
 */
export async function seedNotifications(sql: postgres.Sql, seeded: Seeded, total: number, hotRows: number): Promise<void> {
  await sql`truncate notifications`;
  const every = Math.max(1, Math.floor(total / hotRows));
  const others = seeded.others.map((u) => u.id);
  // Batches keep each statement's memory bounded and let progress be reported.
  const batch = 250_000;
  for (let start = 1; start <= total; start += batch) {
    const end = Math.min(total, start + batch - 1);
    await sql`
      insert into notifications (user_id, event_type, category, title, body, data, date_created, read_at, deleted_at)
      select
        case when ${others.length}::int = 0 or (i % ${every}::int = 0 and i / ${every}::int <= ${hotRows}::int)
             then ${seeded.hot.id}
             else (${others}::text[])[1 + (i / ${every}::int + i) % greatest(${others.length}::int, 1)] end,
        t.event_type, t.category,
        replace(t.title, '#', (i % 9973)::text),
        case when h.b % 20 = 0 then 'Your refund for invoice ' || (i % 9973) || ' is on its way'
             when h.b % 4 = 1 then null
             else 'Details about item ' || (i % 997) || ' are waiting for you in the app' end,
        case when h.d % 100 = 0 then '"not an object"'::jsonb
             when h.d % 2 = 0 then jsonb_build_object('url', 'https://app.example.test/n/' || i)
             else null end,
        now() - make_interval(secs => ${total}::int - i),
        case when h.r % 10 < 7 then now() - make_interval(secs => ${total}::int - i) + interval '1 hour' end,
        case when h.r % 50 = 7 then now() - make_interval(secs => ${total}::int - i) + interval '2 hours' end
      from generate_series(${start}::int, ${end}::int) i
      cross join lateral (select abs(hashint8(i)) as e, abs(hashint8(i + 7919)) as b,
                                 abs(hashint8(i + 104729)) as r, abs(hashint8(i + 1299709)) as d) h
      cross join lateral (
        select (array['message.received','lead.created','review.posted','invoice.paid',
                      'payment.failed','account.updated','security.alert','weekly_digest'])[1 + h.e % 8] as event_type,
               (array['messages','leads','reviews','billing','billing','account','account','system'])[1 + h.e % 8] as category,
               (array['New message from Bench Pro #','A new lead is waiting (#)','You received a review (#)',
                      'Invoice # paid','Payment failed for invoice #','Your account was updated (#)',
                      'New sign-in to your account (#)','Your weekly digest #'])[1 + h.e % 8] as title
      ) t`;
  }
  // Statistics and the visibility map, as autovacuum would have them on a table that has settled.
  await sql.unsafe("vacuum (analyze) notifications");
}

/** Statistics for everything else that was seeded. */
export async function analyzeAll(sql: postgres.Sql): Promise<void> {
  await sql.unsafe("vacuum (analyze)");
}

/** Some of the hot user's visible notification ids, for the mark-read scenario. */
export async function hotNotificationIds(sql: postgres.Sql, hotUserId: string, count: number): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id from notifications where user_id = ${hotUserId} and deleted_at is null
    order by date_created desc limit ${count}`;
  return rows.map((r) => r.id);
}
