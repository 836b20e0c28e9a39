// Users (docs/api.md#accounts): the accounts, found by email or name, page by page; make one;
// grant or revoke the admin role (through a second admin's approval while approvals are required), ban or
// unban, end every session. The service does each act in one transaction with its audit event (server/accounts/); each
// confirmation leads with what will really happen (userRules.ts), and the result takes the focus.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useId, useState } from "react";
import { Link } from "wouter";
import { SESSION_KEY, queryClient as sharedClient, trpc } from "../api.js";
import { ConfirmDialog } from "../components/ConfirmDialog.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { Explained } from "../components/Explained.js";
import { StackedTable } from "../components/StackedTable.js";
import { Time } from "../components/Time.js";
import { AuthRequestError, useSession } from "../session.js";
import { useResultFocus } from "../useResultFocus.js";
import {
  actsOf,
  BAN_DURATIONS,
  banConfirmation,
  banState,
  type Confirmation,
  endSessionsConfirmation,
  isAdminRole,
  type ListedUser,
  nameOf,
  pageSummary,
  type RoleAct,
  refusalOf,
  roleActOf,
  roleConfirmation,
  unbanConfirmation,
} from "../userRules.js";
import { type AdminUser, banUser, endSessions, listUsers, setRole, USERS_PAGE_SIZE, type UserSearch, unbanUser } from "../usersApi.js";
import { pendingRequestsQuery } from "./Approvals.js";
import { requestPath } from "./changeRequests.js";
import { type Created, NewUserForm } from "./NewUserForm.js";

/** An act asked for on a row, while its confirmation is open. */
type Acting = { kind: "role"; act: Exclude<RoleAct, "pending"> } | { kind: "ban" } | { kind: "unban" } | { kind: "sessions" };
/** A ban's reason and length as chosen in its dialog. */
type BanChoice = { reason: string; days: number | null; label: string };
/** What the last act did, in words, and the request it filed (a 202). */
type Result = { text: string; requestId?: string };

const auditPath = (userId: string) => `/audit?targetType=user&targetId=${encodeURIComponent(userId)}`;

export function Users() {
  const ids = useId();
  const queryClient = useQueryClient();
  const me = useSession().data;
  const approvals = useQuery(trpc.settings.get.queryOptions()).data?.approvals;
  const pending = useQuery(pendingRequestsQuery());
  const grantRequests = new Map(
    (pending.data?.changeRequests ?? []).filter((r) => r.action === "grant-admin" && r.userId).map((r) => [r.userId!, r.id]),
  );

  const [draft, setDraft] = useState<{ text: string }>({ text: "" });
  const [search, setSearch] = useState<UserSearch>({ text: "", offset: 0 });
  const list = useQuery({ queryKey: ["users", search], queryFn: () => listUsers(search), placeholderData: keepPreviousData, retry: false });
  // A 401 means the session is gone: the frame asks again and shows the sign-in form.
  useEffect(() => {
    if (list.error instanceof AuthRequestError && list.error.status === 401) void sharedClient.invalidateQueries({ queryKey: SESSION_KEY });
  }, [list.error]);

  const [result, setResult] = useState<Result | null>(null);
  const resultRef = useResultFocus<HTMLDivElement>(result);
  const [target, setTarget] = useState<{ user: AdminUser; acting: Acting } | null>(null);
  const [ban, setBan] = useState({ reason: "", duration: "" });
  const duration = BAN_DURATIONS.find((d) => d.value === ban.duration) ?? BAN_DURATIONS[0];

  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: ["users"] });
    await queryClient.invalidateQueries({ queryKey: trpc.restriction.pathKey() });
    await queryClient.invalidateQueries({ queryKey: trpc.audit.pathKey() });
  };
  const act = useMutation({
    mutationFn: async ({ user, acting, banAs }: { user: AdminUser; acting: Acting; banAs: BanChoice }): Promise<Result> => {
      const who = nameOf(user);
      if (acting.kind === "ban") {
        await banUser(user.id, banAs.reason, banAs.days);
        return { text: `${who} is banned${banAs.days ? ` for ${banAs.label}` : ""}: their sessions have ended and sign-in is refused.` };
      }
      if (acting.kind === "unban") {
        await unbanUser(user.id);
        return { text: `${who} is unbanned: they can sign in again.` };
      }
      if (acting.kind === "sessions") {
        await endSessions(user.id);
        return { text: `Every session of ${who} has ended: they must sign in again.` };
      }
      const answer = await setRole(user.id, acting.act === "revoke" ? "user" : "admin");
      if ("requested" in answer)
        return {
          text: `Admin role requested for ${who}: a second admin must approve. Their role stays user until then.`,
          requestId: answer.requested.id,
        };
      return { text: isAdminRole(answer.changed.role) ? `${who} is an admin now.` : `${who} is no longer an admin.` };
    },
    // A refusal may mean the list is behind (a request filed, an account removed meanwhile).
    onError: () => void refresh(),
    onSuccess: async (done, { user, acting }) => {
      // The list first, so the result and the changed row say the same when focus lands.
      await refresh();
      setTarget(null);
      setResult(done);
      // Taking back one's own role closes the console: the frame reads the session again.
      if (acting.kind === "role" && user.id === me?.id) await sharedClient.invalidateQueries({ queryKey: SESSION_KEY });
    },
  });
  const open = (user: AdminUser, acting: Acting) => {
    act.reset();
    setBan({ reason: "", duration: "" });
    setTarget({ user, acting });
  };

  const find = (event: FormEvent) => {
    event.preventDefault();
    setSearch({ ...draft, offset: 0 });
    // Another admin may have decided a request meanwhile.
    void pending.refetch();
    // The same search again asks again: someone may have been added meanwhile.
    if (draft.text === search.text && search.offset === 0) void list.refetch();
  };
  const created = (answer: Created) => {
    // The new account is the one to see: the list shows it alone, and the result says what happened.
    setDraft({ text: answer.user.email });
    setSearch({ text: answer.user.email, offset: 0 });
    setResult(
      answer.changeRequest
        ? {
            text: `Created ${nameOf(answer.user)} as a user, and requested admin: a second admin must approve.`,
            requestId: answer.changeRequest.id,
          }
        : { text: `Created ${nameOf(answer.user)} as ${isAdminRole(answer.user.role) ? "an admin" : "a user"}.` },
    );
    void refresh();
  };

  const confirmation: Confirmation | null = target
    ? target.acting.kind === "role"
      ? roleConfirmation(target.acting.act, target.user, { self: target.user.id === me?.id, approvals })
      : target.acting.kind === "ban"
        ? banConfirmation(target.user, duration.label)
        : target.acting.kind === "unban"
          ? unbanConfirmation(target.user)
          : endSessionsConfirmation(target.user)
    : null;
  const page = list.data;

  return (
    <>
      <h1>Users</h1>
      <p className="hint users-intro">
        Every account of the service.{" "}
        {approvals === "required"
          ? "Granting the admin role needs a second admin's approval; taking it back, banning and ending sessions take effect at once."
          : "Granting or taking back the admin role, banning and ending sessions take effect at once."}{" "}
        Each act is in the <Link href="/audit?targetType=user">audit log</Link>.
      </p>
      <section aria-labelledby={`${ids}-list`}>
        <h2 id={`${ids}-list`}>Accounts</h2>
        <form aria-label="Find users" className="row inline-form" onSubmit={find}>
          <label>
            Email address or name contains
            <input
              type="search"
              autoComplete="off"
              value={draft.text}
              aria-describedby={`${ids}-search-hint`}
              onChange={(e) => setDraft({ ...draft, text: e.target.value })}
            />
          </label>
          <button type="submit" disabled={list.isFetching}>
            {list.isFetching ? "Finding…" : "Find"}
          </button>
          <p id={`${ids}-search-hint`} className="hint users-search-hint">
            Part is enough, e.g. alice or @example.com; a name matches as typed, capitals included. Empty: every user.
          </p>
        </form>
        <ErrorNotice title="Could not list users" error={list.error} />
        {result && (
          <div ref={resultRef} tabIndex={-1} role="status" className="notice notice-ok users-result">
            <p>
              {result.text} {result.requestId && <Link href={requestPath(result.requestId)}>Open the pending request</Link>}
            </p>
          </div>
        )}
        {list.isPending ? (
          <p aria-busy="true">Loading users…</p>
        ) : (
          page && (
            <>
              <p role="status" className="hint">
                {pageSummary(page.users.length, search.offset, page.total, search)}
              </p>
              {page.users.length > 0 && (
                <UserTable users={page.users} me={me?.id} approvals={approvals} grantRequests={grantRequests} onAct={open} />
              )}
              {page.total > USERS_PAGE_SIZE && (
                <div className="row users-pager">
                  <button
                    type="button"
                    disabled={search.offset === 0}
                    onClick={() => setSearch({ ...search, offset: Math.max(0, search.offset - USERS_PAGE_SIZE) })}
                  >
                    Previous page
                  </button>
                  <button
                    type="button"
                    disabled={search.offset + USERS_PAGE_SIZE >= page.total}
                    onClick={() => setSearch({ ...search, offset: search.offset + USERS_PAGE_SIZE })}
                  >
                    Next page
                  </button>
                </div>
              )}
            </>
          )
        )}
      </section>
      <NewUserForm approvals={approvals} onCreated={created} />
      <ConfirmDialog
        open={target !== null}
        title={confirmation?.title ?? ""}
        lead={confirmation?.lead}
        confirmLabel={act.isPending ? "Working…" : (confirmation?.confirmLabel ?? "")}
        tone={confirmation?.tone}
        confirmDisabled={act.isPending || (target?.acting.kind === "ban" && !ban.reason.trim())}
        onConfirm={() => target && act.mutate({ ...target, banAs: { reason: ban.reason, days: duration.days, label: duration.label } })}
        onCancel={() => setTarget(null)}
      >
        {target?.acting.kind === "ban" && (
          <div className="stack">
            <label>
              Reason (kept in the audit log)
              <input required autoComplete="off" value={ban.reason} onChange={(e) => setBan({ ...ban, reason: e.target.value })} />
            </label>
            <label className="short">
              How long
              <select value={ban.duration} onChange={(e) => setBan({ ...ban, duration: e.target.value })}>
                {BAN_DURATIONS.map((d) => (
                  <option key={d.value} value={d.value}>
                    {d.label}
                  </option>
                ))}
              </select>
            </label>
          </div>
        )}
        {target && <Refusal acting={target.acting} user={target.user} error={act.error} />}
      </ConfirmDialog>
    </>
  );
}

/** Why the service refused the act: in words when the console knows the refusal, else the service's text. */
function Refusal({ acting, user, error }: { acting: Acting; user: ListedUser; error: unknown }) {
  const words = error instanceof AuthRequestError ? refusalOf(acting.kind === "role" ? acting.act : acting.kind, user, error) : null;
  if (!words) return <ErrorNotice title="Not done" error={error} />;
  return (
    <div role="alert" className="notice notice-error">
      <p>
        <Explained lead="Not done:" text={words} />
      </p>
    </div>
  );
}

type TableProps = {
  users: AdminUser[];
  me: string | undefined;
  approvals: "off" | "required" | undefined;
  grantRequests: Map<string, string>;
  onAct(user: AdminUser, acting: Acting): void;
};

const roleButton: Record<Exclude<RoleAct, "pending">, string> = {
  grant: "Make admin…",
  request: "Request admin…",
  revoke: "Revoke admin…",
};

function UserTable({ users, me, approvals, grantRequests, onAct }: TableProps) {
  const now = Date.now();
  // On a phone each account is a block of labelled lines (table.stacked); the acts wrap in their cell.
  return (
    <StackedTable className="users" caption="Users, by email address" columns={["User", "Role", "Status", "Created", "Actions"]}>
      {users.map((user) => {
        const who = user.email;
        const requestId = grantRequests.get(user.id);
        const roleAct = roleActOf(user, approvals, Boolean(requestId));
        const acts = actsOf(user, me);
        const state = banState(user, now);
        return (
          <tr key={user.id}>
            <td data-label="User" className="user-cell">
              <span className="user-title">
                {user.name || user.email}
                {user.id === me && <span className="hint"> (you)</span>}
              </span>
              {user.name && <span className="hint email">{user.email}</span>}
            </td>
            <td data-label="Role">
              <span className={`badge ${isAdminRole(user.role) ? "badge-active" : "badge-off"}`}>
                {isAdminRole(user.role) ? "Admin" : "User"}
              </span>
              {requestId && roleAct === "pending" && (
                <span className="hint pending-grant">
                  Admin requested, waiting for a second admin: <Link href={requestPath(requestId)}>open the request</Link>
                </span>
              )}
            </td>
            <td data-label="Status" className="status">
              <span className={`badge ${state.badge}`}>{state.label}</span>
              {user.banned && user.banExpires && (
                <span className="hint">
                  until <Time value={user.banExpires} />
                </span>
              )}
              {state.detail && <span className="hint wrap-anywhere">{state.detail}</span>}
            </td>
            <td data-label="Created" className="when">
              <Time value={user.createdAt} />
            </td>
            <td data-label="Actions">
              <div className="user-acts">
                {roleAct !== "pending" && (
                  <button
                    type="button"
                    aria-label={`${roleButton[roleAct].replace("…", "")}: ${who}`}
                    onClick={() => onAct(user, { kind: "role", act: roleAct })}
                  >
                    {roleButton[roleAct]}
                  </button>
                )}
                {acts.ban && (
                  <button type="button" aria-label={`Ban: ${who}`} onClick={() => onAct(user, { kind: "ban" })}>
                    Ban…
                  </button>
                )}
                {acts.unban && (
                  <button type="button" aria-label={`Unban: ${who}`} onClick={() => onAct(user, { kind: "unban" })}>
                    Unban…
                  </button>
                )}
                {acts.endSessions && (
                  <button type="button" aria-label={`End sessions: ${who}`} onClick={() => onAct(user, { kind: "sessions" })}>
                    End sessions…
                  </button>
                )}
                <Link href={auditPath(user.id)} aria-label={`Audit log: ${who}`}>
                  Audit log
                </Link>
              </div>
            </td>
          </tr>
        );
      })}
    </StackedTable>
  );
}
