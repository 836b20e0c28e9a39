// The Users view's rules (console/src/userRules.ts): which role act a row offers in each mode, what each
// confirmation leads with (what will really happen), and how a ban and a page of users read.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  actsOf,
  BAN_DURATIONS,
  banConfirmation,
  banState,
  createAdminHint,
  createProblems,
  endSessionsConfirmation,
  isAdminRole,
  type ListedUser,
  pageSummary,
  refusalOf,
  roleActOf,
  roleConfirmation,
} from "../../console/src/userRules.js";

const ann: ListedUser = { id: "u1", name: "Ann", email: "ann@example.com", role: "user" };
const admin: ListedUser = { ...ann, id: "u2", role: "admin" };

describe("roleActOf", () => {
  test("granting is direct with approvals off, a request with approvals required", () => {
    expect(roleActOf(ann, "off", false)).toBe("grant");
    expect(roleActOf(ann, "required", false)).toBe("request");
  });
  test("an admin's role is taken back in either mode; a waiting request offers no second one", () => {
    expect(roleActOf(admin, "required", false)).toBe("revoke");
    expect(roleActOf(admin, "off", false)).toBe("revoke");
    expect(roleActOf(ann, "required", true)).toBe("pending");
  });
  test("only the role admin is an admin, as the service reads it (users.role is user or admin)", () => {
    fc.assert(
      fc.property(fc.string(), (role) => {
        expect(isAdminRole(role)).toBe(role === "admin");
      }),
    );
  });
});

describe("roleConfirmation leads with what will really happen", () => {
  test("approvals required: a request a second admin must approve, the role unchanged", () => {
    const c = roleConfirmation("request", ann, { self: false, approvals: "required" });
    expect(c.title).toBe("Request admin for Ann <ann@example.com>?");
    expect(c.lead).toMatch(/^Request admin for Ann <ann@example\.com> — a second admin must approve/);
    expect(c.confirmLabel).toBe("Request admin role");
  });
  test("approvals off: the role at once, no approval mentioned", () => {
    const c = roleConfirmation("grant", ann, { self: false, approvals: "off" });
    expect(c.title).toBe("Make Ann <ann@example.com> an admin?");
    expect(c.lead).toMatch(/^Make Ann <ann@example\.com> an admin: at once/);
    expect(c.lead).not.toMatch(/approv/i);
  });
  test("mode unknown: both outcomes are said", () => {
    expect(roleConfirmation("grant", ann, { self: false, approvals: undefined }).lead).toMatch(/second admin must approve/);
  });
  test("revoking is at once in both modes; giving it back needs approval only when required", () => {
    const required = roleConfirmation("revoke", admin, { self: false, approvals: "required" });
    expect(required).toMatchObject({ tone: "danger", confirmLabel: "Revoke admin" });
    expect(required.lead).toMatch(/at once: no approval is needed/);
    expect(required.lead).toMatch(/second admin's approval/);
    expect(roleConfirmation("revoke", admin, { self: false, approvals: "off" }).lead).not.toMatch(/second admin's approval/);
  });
  test("revoking one's own role says the console closes", () => {
    const c = roleConfirmation("revoke", admin, { self: true, approvals: "off" });
    expect(c.title).toBe("Revoke your own admin role?");
    expect(c.lead).toMatch(/console closes to you/);
  });
});

describe("the other acts", () => {
  test("an admin neither bans nor ends the sessions of their own account; a banned user is offered unban", () => {
    expect(actsOf(ann, "u1")).toEqual({ ban: false, unban: false, endSessions: false });
    expect(actsOf(ann, "other")).toEqual({ ban: true, unban: false, endSessions: true });
    expect(actsOf({ ...ann, banned: true }, "other")).toEqual({ ban: false, unban: true, endSessions: true });
  });
  test("a ban says it ends the sessions, and for how long", () => {
    expect(banConfirmation(ann, BAN_DURATIONS[0].label).lead).toBe(
      "Ban Ann <ann@example.com> until an admin unbans them: every session of theirs ends now and sign-in is refused.",
    );
    expect(banConfirmation(ann, "7 days").lead).toMatch(/for 7 days/);
    expect(endSessionsConfirmation(ann).lead).toMatch(/may sign in again/);
  });
  test("a ban's state: with its reason, and over once it expired", () => {
    const now = Date.parse("2026-05-01T00:00:00Z");
    expect(banState(ann, now).label).toBe("Active");
    expect(banState({ ...ann, banned: true, banReason: " left " }, now)).toMatchObject({ label: "Banned", detail: "left" });
    expect(banState({ ...ann, banned: true, banExpires: "2026-04-30T00:00:00Z" }, now).label).toBe("Ban over");
    expect(banState({ ...ann, banned: true, banExpires: "2026-05-02T00:00:00Z" }, now).label).toBe("Banned");
  });
  test("the create form's admin choice as it will happen", () => {
    expect(createAdminHint("required")).toMatch(/made as a user, and admin is requested/);
    expect(createAdminHint("off")).toBe("The account is an admin at once.");
  });
  test("the create form's fields in words", () => {
    expect(createProblems({ name: "", email: "x", password: "short", admin: false })).toEqual({
      name: "Enter the person's name.",
      email: "Enter an address like name@example.com.",
      password: "At least 8 characters.",
    });
    expect(createProblems({ name: "A", email: "a@b.c", password: "12345678", admin: true })).toEqual({
      name: undefined,
      email: undefined,
      password: undefined,
    });
  });
  test("a page of users in words", () => {
    expect(pageSummary(0, 0, 0, { text: "zed" })).toBe("No user's email address or name contains “zed”.");
    expect(pageSummary(3, 0, 3, { text: "" })).toBe("3 users.");
    expect(pageSummary(1, 0, 1, { text: "ann" })).toBe("1 user found.");
    expect(pageSummary(20, 20, 45, { text: "" })).toBe("Users 21–40 of 45.");
  });
  test("a refusal in words, the service's text kept", () => {
    const conflict = { status: 409, message: "User u1 already has a pending grant-admin request: decide or cancel it first" };
    expect(refusalOf("request", ann, conflict)).toEqual({
      summary: "A request for Ann <ann@example.com>'s admin role already waits for a second admin: see Pending approvals.",
      detail: conflict.message,
    });
    expect(refusalOf("ban", ann, { status: 404, message: "User not found" })?.summary).toBe(
      "Ann <ann@example.com> no longer exists: the account was removed meanwhile.",
    );
    // Whatever the console cannot explain better, the service's message says.
    expect(refusalOf("ban", ann, { status: 400, message: "You cannot ban yourself" })).toBeNull();
  });
});
