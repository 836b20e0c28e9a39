// What a signed-in user who is not a platform admin sees: why the console is closed to them, how to get in
// with another account, and their own notifications, preferences and account, which are theirs.
import { Link } from "wouter";
import { SignOutButton } from "./SignIn.js";

export function NoAccess({ email }: { email: string }) {
  return (
    <section className="card narrow no-access" aria-labelledby="no-access-title">
      <h1 id="no-access-title">No access to the operator console</h1>
      <p>
        <strong>{email}</strong> is not a platform admin. The console's views need an admin account: sign out and sign in with one.
      </p>
      <p>
        Your own notifications are open to you: <Link href="/inbox">open your notifications</Link>, choose which reach you in{" "}
        <Link href="/preferences">your preferences</Link>, or change your password in <Link href="/account">your account</Link>.
      </p>
      <div className="row">
        <SignOutButton label="Sign out to use another account" />
      </div>
    </section>
  );
}
