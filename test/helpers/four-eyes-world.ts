// The world of the four-eyes search (test/integration/four-eyes-search.test.ts): people, the accounts they
// own, the credentials each one holds, and what the service was asked. The service decides; the world only
// remembers who did what with which credential, so the search can judge every applied change by the people
// behind it, not by account ids.
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { rowsOf } from "../../db/arrays.js";
import type { TestApp } from "./app.js";

export const PEOPLE = ["A", "B", "U", "V"] as const;
export type Person = (typeof PEOPLE)[number];

/** A credential a person holds: a session token of an account, their own or not. */
export type Credential = { token: string; account: string; holder: Person; impersonatedBy: string | null };

export type Filed = {
  filer: Person;
  /** The account that filed it. */
  requester: string;
  /** Who could act as the requester when it was filed. */
  requesterControllers: Set<Person>;
  /** A grant-admin's target, and who could act as it when filed. */
  target?: { account: string; controllers: Set<Person> };
};

export class World {
  readonly accounts: { id: string; email: string; owner: Person }[] = [];
  /** Who knows each account's current password. */
  readonly knows = new Map<string, Set<Person>>();
  credentials: Credential[] = [];
  readonly filed = new Map<string, Filed>();
  /** Every act and its answer, in order: the counterexample's story. */
  readonly history: string[] = [];
  /** The accounts that started as admins (ADMIN_EMAILS would make them). */
  readonly startAdmins = new Set<string>();

  /** `outcomes` counts each act's answers across runs (`kind status`): what the search reached. */
  constructor(
    readonly app: TestApp,
    readonly outcomes = new Map<string, number>(),
  ) {}

  /** Whether the credential still signs anyone in. */
  async live(credential: Credential): Promise<boolean> {
    const res = await this.app.app.inject({
      method: "GET",
      url: "/api/notifications/unread-count",
      headers: { authorization: `Bearer ${credential.token}` },
    });
    return res.statusCode === 200;
  }

  /** The people who can act as the account now: who knows its password, who holds a live session of it. */
  async controllers(account: string): Promise<Set<Person>> {
    const people = new Set(this.knows.get(account) ?? []);
    for (const credential of this.credentials) {
      if (credential.account === account && !people.has(credential.holder) && (await this.live(credential))) people.add(credential.holder);
    }
    return people;
  }

  /** Forgets credentials that no longer sign anyone in. */
  async prune(): Promise<void> {
    const alive = [];
    for (const credential of this.credentials) if (await this.live(credential)) alive.push(credential);
    this.credentials = alive;
  }
}

/** A digest of every table an account act may change, to tell whether an act changed anything. */
export async function tablesDigest(app: TestApp): Promise<string> {
  const rows = await app.db.db.execute<{ digest: string }>(sql`select md5(concat_ws('|',
    (select coalesce(string_agg(t::text, ',' order by t::text), '') from users t),
    (select coalesce(string_agg(t::text, ',' order by t::text), '') from accounts t),
    (select coalesce(string_agg(t::text, ',' order by t::text), '') from sessions t),
    (select coalesce(string_agg(t::text, ',' order by t::text), '') from change_requests t),
    (select coalesce(string_agg(t::text, ',' order by t::text), '') from password_chosen_by t),
    (select coalesce(string_agg(t::text, ',' order by t::text), '') from pro_restriction_status t))) as digest`);
  return rowsOf<{ digest: string }>(rows)[0]!.digest;
}

/** How many audit events carry this request id. */
export async function eventsOf(app: TestApp, requestId: string): Promise<number> {
  const rows = await app.db.db.execute<{ n: number }>(sql`select count(*)::int as n from audit_events where request_id = ${requestId}`);
  return rowsOf<{ n: number }>(rows)[0]!.n;
}

export const requestId = () => `search-${randomBytes(6).toString("hex")}`;
