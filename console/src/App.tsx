// The frame: who is signed in, the navigation, and one view per path under /console. Focus follows the
// view: after signing in and after each navigation, the new view's <h1> takes it (useHeadingFocus.ts).
import { useQuery } from "@tanstack/react-query";
import { Link, Redirect, Route, Switch, useLocation } from "wouter";
import { usePathname, useSearch } from "wouter/use-browser-location";
import { ErrorNotice } from "./components/ErrorNotice.js";
import { UnreadBadge } from "./components/UnreadBadge.js";
import { proIdFromLocation } from "./links.js";
import { useSession } from "./session.js";
import { useHeadingFocus } from "./useHeadingFocus.js";
import { Account } from "./views/Account.js";
import { ApiKeys } from "./views/ApiKeys.js";
import { ApprovalRequest } from "./views/ApprovalRequest.js";
import { Approvals, pendingRequestsQuery } from "./views/Approvals.js";
import { AuditLog } from "./views/AuditLog.js";
import { CohortPage } from "./views/CohortPage.js";
import { Cohorts } from "./views/Cohorts.js";
import { Deliveries } from "./views/Deliveries.js";
import { Inbox } from "./views/Inbox.js";
import { NoAccess } from "./views/NoAccess.js";
import { Preferences } from "./views/Preferences.js";
import { ProLookup } from "./views/ProLookup.js";
import { SignIn, SignOutButton } from "./views/SignIn.js";
import { TestSender } from "./views/TestSender.js";
import { Users } from "./views/Users.js";

const sections = [
  { href: "/cohorts", label: "Cohorts" },
  { href: "/pros", label: "Pro lookup" },
  { href: "/audit", label: "Audit log" },
  { href: "/test-sender", label: "Test sender" },
  { href: "/api-keys", label: "API keys" },
  { href: "/deliveries", label: "Deliveries" },
  { href: "/users", label: "Users" },
  { href: "/approvals", label: "Approvals" },
];
/**
 * Everyone signed in has their own inbox, notification preferences and account (password, sessions): the
 * sections an account that is not an admin sees.
 */
const own = [
  { href: "/inbox", label: "Inbox" },
  { href: "/preferences", label: "Preferences" },
  { href: "/account", label: "Account" },
];

function Nav({ admin }: { admin: boolean }) {
  const [location] = useLocation();
  // Change requests waiting for a second admin: "Approvals (2)", refreshed every 30 s and after each change.
  const pending = useQuery({ ...pendingRequestsQuery(), enabled: admin }).data?.changeRequests.length ?? 0;
  return (
    <nav aria-label="Sections">
      <ul>
        {(admin ? [...sections, ...own] : own).map((s) => {
          const active = location === s.href || location.startsWith(`${s.href}/`);
          return (
            <li key={s.href}>
              <Link href={s.href} aria-current={active ? "page" : undefined}>
                {s.href === "/approvals" && pending > 0 ? `${s.label} (${pending})` : s.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

/**
 * The pro of /pros/<id>, read from the address as the browser holds it (links.ts), not from wouter's
 * params; a new pro starts a new view, so the lookup field shows the id on screen.
 */
function ProRoute() {
  const proId = proIdFromLocation(usePathname(), useSearch());
  return <ProLookup key={proId ?? ""} proId={proId} />;
}

function Views() {
  return (
    <Switch>
      <Route path="/cohorts" component={Cohorts} />
      <Route path="/cohorts/:id">{(params) => <CohortPage id={params.id} />}</Route>
      <Route path="/pros/:proId?" component={ProRoute} />
      <Route path="/audit" component={AuditLog} />
      <Route path="/test-sender" component={TestSender} />
      <Route path="/api-keys" component={ApiKeys} />
      <Route path="/deliveries" component={Deliveries} />
      <Route path="/users" component={Users} />
      <Route path="/approvals" component={Approvals} />
      <Route path="/approvals/:id">{(params) => <ApprovalRequest key={params.id} id={params.id} />}</Route>
      <Route path="/inbox" component={Inbox} />
      <Route path="/preferences" component={Preferences} />
      <Route path="/account" component={Account} />
      <Route>
        <Redirect to="/cohorts" replace />
      </Route>
    </Switch>
  );
}

/**
 * Anyone signed in has their own inbox, preferences and account; every other view needs a platform admin.
 * The console's front door (/console) is the inbox for them, not "No access" one click from it.
 */
function NonAdminViews({ email }: { email: string }) {
  return (
    <Switch>
      <Route path="/">
        <Redirect to="/inbox" replace />
      </Route>
      <Route path="/inbox" component={Inbox} />
      <Route path="/preferences" component={Preferences} />
      <Route path="/account" component={Account} />
      <Route>
        <NoAccess email={email} />
      </Route>
    </Switch>
  );
}

export function App() {
  const session = useSession();
  const user = session.data;
  useHeadingFocus(session.isPending ? undefined : (user?.id ?? null), usePathname());
  return (
    <>
      {/* The first stop of the Tab order: past the header and the navigation to the view itself. */}
      {/* biome-ignore lint/a11y/useValidAnchor: a skip link is a link by convention; a #fragment alone only moves where the next Tab starts, so the click also focuses main */}
      <a
        href="#main"
        className="skip-link"
        onClick={(event) => {
          event.preventDefault();
          document.getElementById("main")?.focus();
        }}
      >
        Skip to content
      </a>
      <header className="top">
        <p className="brand">Restriction rollout · operator console</p>
        {user && (
          <div className="who">
            <span>
              Signed in as <strong>{user.email}</strong>
            </span>
            <UnreadBadge />
            <SignOutButton />
          </div>
        )}
      </header>
      {user && <Nav admin={user.role === "admin"} />}
      <main id="main" tabIndex={-1}>
        {session.isPending ? (
          <p aria-busy="true">Loading…</p>
        ) : session.isError ? (
          <ErrorNotice error={session.error} />
        ) : !user ? (
          <SignIn />
        ) : user.role !== "admin" ? (
          <NonAdminViews email={user.email} />
        ) : (
          <Views />
        )}
      </main>
    </>
  );
}
