// Admin test sender: an in-app notification or a push to one user (found by email, yourself, or a user id),
// and what the service answered. On a service without VAPID keys (settings.get) it says first that push is
// off and how to turn it on.

import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useId, useRef, useState } from "react";
import { MAX_BODY_LENGTH, MAX_TITLE_LENGTH } from "../../../server/notifications/limits.js";
import { type RouterInputs, type RouterOutputs, trpc } from "../api.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { StackedTable } from "../components/StackedTable.js";
import { Time } from "../components/Time.js";
import { type Recipient, UserPicker } from "../components/UserPicker.js";
import { useResultFocus } from "../useResultFocus.js";
import { userLabel } from "../userSearch.js";

type Message = Omit<RouterInputs["notifications"]["testInApp"], "targetUserId">;

export function TestSender() {
  const ids = useId();
  const [recipient, setRecipient] = useState<Recipient | null>(null);
  const [missingRecipient, setMissingRecipient] = useState(false);
  const searchRef = useRef<HTMLInputElement>(null);
  const [form, setForm] = useState<Message>({ type: "system.test", title: "", body: "", url: "" });
  const inApp = useMutation(trpc.notifications.testInApp.mutationOptions());
  const push = useMutation(trpc.notifications.testPush.mutationOptions());
  const [last, setLast] = useState<"inApp" | "push" | null>(null);
  const [sentTo, setSentTo] = useState<Recipient | null>(null);
  const pushOff = useQuery(trpc.settings.get.queryOptions()).data?.vapidConfigured === false;

  const field = (name: keyof Message) => ({
    value: form[name] ?? "",
    onChange: (e: { target: { value: string } }) => setForm({ ...form, [name]: e.target.value }),
  });
  const choose = (next: Recipient | null) => {
    setRecipient(next);
    if (next) setMissingRecipient(false);
  };
  const send = (channel: "inApp" | "push") => (event?: FormEvent) => {
    event?.preventDefault();
    if (!recipient) {
      // The recipient is chosen above the message: say so there and go there.
      setMissingRecipient(true);
      searchRef.current?.focus();
      return;
    }
    setLast(channel);
    setSentTo(recipient);
    inApp.reset();
    push.reset();
    (channel === "inApp" ? inApp : push).mutate({ ...form, targetUserId: recipient.id });
  };
  const pending = inApp.isPending || push.isPending;
  // The send buttons are disabled while it works: what the service answered takes focus.
  const answered = last === "inApp" ? (inApp.data ?? inApp.error) : last === "push" ? (push.data ?? push.error) : null;
  const resultRef = useResultFocus<HTMLElement>(answered);

  return (
    <>
      <h1>Test sender</h1>
      <p className="hint">Sends one in-app notification or one push to a user, and shows what the service answered.</p>
      <UserPicker value={recipient} onChange={choose} searchRef={searchRef} missing={missingRecipient} />
      <form onSubmit={send("inApp")} className="card stack" aria-labelledby={`${ids}-title`}>
        <h2 id={`${ids}-title`}>Message</h2>
        <div className="row">
          <label>
            Type
            <input required {...field("type")} aria-describedby={`${ids}-type-hint`} />
            <span id={`${ids}-type-hint`} className="hint">
              e.g. message.received; the part before the first dot picks the category.
            </span>
          </label>
          <label>
            Title
            <input required maxLength={MAX_TITLE_LENGTH} {...field("title")} />
          </label>
        </div>
        <label>
          Body
          <textarea rows={3} maxLength={MAX_BODY_LENGTH} {...field("body")} />
        </label>
        <label>
          URL
          <input {...field("url")} placeholder="/inbox" aria-describedby={`${ids}-url-hint`} />
          <span id={`${ids}-url-hint`} className="hint">
            An https: address or a path of the app starting with /; the service refuses any other link.
          </span>
        </label>
        {pushOff && <PushOffNotice id={`${ids}-push-off`} />}
        <div className="row">
          <button type="submit" className="primary" disabled={pending}>
            Send in-app
          </button>
          <button
            type="button"
            className="primary"
            disabled={pending}
            aria-describedby={pushOff ? `${ids}-push-off` : undefined}
            // The same required fields as the form's submit button: the browser names what is missing.
            onClick={(e) => e.currentTarget.form?.reportValidity() && send("push")()}
          >
            Send push
          </button>
        </div>
      </form>
      <section aria-live="polite" aria-label="Result" ref={resultRef} tabIndex={-1}>
        {last === "inApp" && <ErrorNotice title="In-app notification not created" error={inApp.error} />}
        {last === "push" && <ErrorNotice title="Push not sent" error={push.error} />}
        {inApp.data && <InAppResult result={inApp.data} to={sentTo} />}
        {push.data && <PushResult result={push.data} />}
      </section>
    </>
  );
}

/** Push is off on this service: how to set the keys (docs/api.md#web-push-keys), as the service's error says. */
function PushOffNotice({ id }: { id: string }) {
  return (
    <div id={id} className="notice notice-off">
      <p>
        <strong>Push is off on this service:</strong> it has no VAPID keys, so a push answers "VAPID not configured".
      </p>
      <p>
        To turn it on, run <code>npx web-push generate-vapid-keys</code>, set <code>VAPID_PUBLIC_KEY</code> and{" "}
        <code>VAPID_PRIVATE_KEY</code> to the two keys it prints and <code>VAPID_SUBJECT</code> to a <code>mailto:</code> or{" "}
        <code>https:</code> address, then restart the service (docs/api.md, "Web Push keys").
      </p>
    </div>
  );
}

function InAppResult({ result, to }: { result: RouterOutputs["notifications"]["testInApp"]; to: Recipient | null }) {
  const n = result.notification;
  return (
    <div role="status" className="notice notice-ok">
      <p>
        In-app notification created: <strong>{n.title}</strong>
        {to?.email && <> for {userLabel({ name: to.name ?? "", email: to.email })}</>} at <Time value={n.dateCreated} />.
      </p>
      <p className="hint wrap-anywhere">
        Notification id <code>{n.id}</code>
      </p>
    </div>
  );
}

function PushResult({ result }: { result: RouterOutputs["notifications"]["testPush"] }) {
  const tried = result.sent + result.failed;
  return (
    <div role="status" className={`notice ${result.failed ? "notice-warn" : "notice-ok"}`}>
      <p>
        Push: {result.sent} sent, {result.failed} failed, {result.deactivated} subscriptions deactivated
        {tried === 0 && " — this user has no active push subscription"}.
      </p>
      {result.results.length > 0 && (
        <StackedTable
          className="push-results"
          caption="What each push subscription answered"
          columns={["Subscription", "Status", "Outcome"]}
        >
          {result.results.map((r) => (
            <tr key={r.subscriptionId}>
              <td data-label="Subscription" className="wrap-anywhere">
                <code>{r.subscriptionId}</code>
              </td>
              <td data-label="Status">{r.statusCode ?? "—"}</td>
              <td data-label="Outcome" className="wrap-anywhere">
                {r.ok ? "delivered" : (r.error ?? "failed")}
              </td>
            </tr>
          ))}
        </StackedTable>
      )}
    </div>
  );
}
