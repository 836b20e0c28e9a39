// Service API keys: the form that creates one, its secret shown once right there, and every key with what
// it may do and whether it still works, each active one revocable after confirming.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useId, useRef, useState } from "react";
import { type ApiKeyScope, apiKeyScopes } from "../../../db/schema/api-key-scopes.js";
import { MAX_API_KEY_DAYS, MAX_API_KEY_NAME_LENGTH, MAX_API_KEY_PRODUCER_LENGTH } from "../../../server/accounts/api-key-limits.js";
import { type RouterInputs, type RouterOutputs, trpc } from "../api.js";
import { ConfirmDialog } from "../components/ConfirmDialog.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { StackedTable } from "../components/StackedTable.js";
import { Time } from "../components/Time.js";

type ApiKey = RouterOutputs["apiKeys"]["list"]["apiKeys"][number];
/** A key just created and its secret: held by this view's state only, gone with "Done" or the view. */
type Created = { name: string; secret: string };

const scopeHints: Record<ApiKeyScope, string> = {
  "flags:read": "reads the restriction flag over OFREP (/ofrep/*)",
  "notifications:write": "sends notifications to users (the producer API)",
  "audit:read": "reads the audit log export (GET /api/admin/audit/export), e.g. for a SIEM",
};

export function ApiKeys() {
  const queryClient = useQueryClient();
  const keys = useQuery(trpc.apiKeys.list.queryOptions());
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: trpc.apiKeys.pathKey() });
    await queryClient.invalidateQueries({ queryKey: trpc.audit.pathKey() });
  };
  const revoke = useMutation(
    trpc.apiKeys.revoke.mutationOptions({
      onSuccess: async ({ apiKey }) => {
        setRevoking(null);
        setDone(`${apiKey.name} revoked: services using it are refused from now on.`);
        await refresh();
      },
    }),
  );
  const askRevoke = (key: ApiKey) => {
    revoke.reset();
    setDone(null);
    setRevoking(key);
  };

  return (
    <>
      <h1>API keys</h1>
      <p className="hint">
        Other services send a key in the <code>X-API-Key</code> header. Only a hash of its secret is stored: a lost secret cannot be shown
        again, create a new key instead.
      </p>
      <CreateKey
        onCreated={async () => {
          // The last revocation's message is old news once another key is made.
          setDone(null);
          await refresh();
        }}
      />
      <section aria-labelledby="keys-title">
        <h2 id="keys-title">Keys</h2>
        <ErrorNotice error={keys.error} />
        {done && (
          <p role="status" className="notice notice-ok">
            {done}
          </p>
        )}
        {keys.isPending ? (
          <p aria-busy="true">Loading API keys…</p>
        ) : keys.data?.apiKeys.length === 0 ? (
          <p className="empty">No API keys yet.</p>
        ) : (
          keys.data && <KeyTable keys={keys.data.apiKeys} onRevoke={askRevoke} />
        )}
      </section>
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke ${revoking?.name ?? ""}?`}
        confirmLabel={revoke.isPending ? "Revoking…" : "Revoke"}
        tone="danger"
        confirmDisabled={revoke.isPending}
        onConfirm={() => revoking && revoke.mutate({ id: revoking.id })}
        onCancel={() => setRevoking(null)}
      >
        <p>Services using it stop at once. This cannot be undone.</p>
        <ErrorNotice title="Not revoked" error={revoke.error} />
      </ConfirmDialog>
    </>
  );
}

type Status = "Active" | "Expired" | "Revoked";
const statusOf = (key: ApiKey, now: number): Status =>
  key.revokedAt ? "Revoked" : key.expiresAt && key.expiresAt.getTime() <= now ? "Expired" : "Active";
const badgeOf: Record<Status, string> = { Active: "badge-active", Expired: "badge-off", Revoked: "badge-fail" };

function KeyTable({ keys, onRevoke }: { keys: ApiKey[]; onRevoke(key: ApiKey): void }) {
  const now = Date.now();
  // Each cell carries its column's name: on a phone a key is a block of labelled lines (table.stacked); the
  // box scrolls sideways should a row still not fit, so the page never does. The prefix shares the name's
  // cell and Revoke the status's, so that a laptop's width holds every column with each email and time
  // whole (styles/platform.css).
  return (
    <StackedTable
      className="keys"
      caption="API keys, newest first, revoked ones included"
      columns={["Name", "Scopes", "Created", "Expires", "Last used", "Status"]}
    >
      {keys.map((key) => {
        const status = statusOf(key, now);
        return (
          <tr key={key.id}>
            <td data-label="Name" className="key-name">
              <span className="key-title">{key.name}</span>
              {key.producer !== key.name && (
                <span className="hint">
                  producer <span className="keep-whole">{key.producer}</span>
                </span>
              )}
              <span className="hint">
                prefix <code>{key.prefix}…</code>
              </span>
            </td>
            <td data-label="Scopes">
              <ul className="plain">
                {key.scopes.map((scope) => (
                  <li key={scope}>
                    <code>{scope}</code>
                  </li>
                ))}
              </ul>
            </td>
            <td data-label="Created" className="when">
              <Time value={key.createdAt} />
              <span className="hint by">
                by <span className="email">{key.createdBy.email}</span>
              </span>
            </td>
            <td data-label="Expires" className="when">
              {key.expiresAt ? <Time value={key.expiresAt} /> : "Never"}
            </td>
            <td data-label="Last used" className="when">
              {key.lastUsedAt ? <Time value={key.lastUsedAt} /> : "Never"}
            </td>
            <td data-label="Status">
              <div className="key-status">
                <span className={`badge ${badgeOf[status]}`}>{status}</span>
                {status === "Active" && (
                  <button type="button" className="danger" aria-label={`Revoke ${key.name}`} onClick={() => onRevoke(key)}>
                    Revoke…
                  </button>
                )}
              </div>
            </td>
          </tr>
        );
      })}
    </StackedTable>
  );
}

type Draft = { name: string; producer: string; scopes: ApiKeyScope[]; days: string };
type Field = keyof Draft;
const EMPTY: Draft = { name: "", producer: "", scopes: [], days: "" };

/** What is wrong with each field, in the service's terms (server/accounts/api-key-schemas.ts). */
function problemsOf(draft: Draft): Partial<Record<Field, string>> {
  const days = draft.days.trim();
  const n = Number(days);
  return {
    name: !draft.name.trim()
      ? "Enter a name, e.g. the name of the service that will hold the key."
      : draft.name.length > MAX_API_KEY_NAME_LENGTH
        ? `At most ${MAX_API_KEY_NAME_LENGTH} characters.`
        : undefined,
    // Empty means the name; only white space would be a producer the service refuses.
    producer:
      draft.producer && !draft.producer.trim()
        ? "Enter a producer, or leave it empty to use the name."
        : draft.producer.length > MAX_API_KEY_PRODUCER_LENGTH
          ? `At most ${MAX_API_KEY_PRODUCER_LENGTH} characters.`
          : undefined,
    scopes: draft.scopes.length === 0 ? "Choose at least one scope." : undefined,
    days:
      days && !(/^\d+$/.test(days) && n >= 1 && n <= MAX_API_KEY_DAYS)
        ? `A whole number of days from 1 to ${MAX_API_KEY_DAYS}, or empty for a key that never expires.`
        : undefined,
  };
}

/** The new key's form; once created, its secret in place of the form until "Done". */
function CreateKey({ onCreated }: { onCreated(): Promise<void> }) {
  const ids = useId();
  const nameRef = useRef<HTMLInputElement>(null);
  const producerRef = useRef<HTMLInputElement>(null);
  const daysRef = useRef<HTMLInputElement>(null);
  const scopesRef = useRef<HTMLFieldSetElement>(null);
  const [draft, setDraft] = useState(EMPTY);
  // A field's message shows once it was changed, or after a submit: never on an untouched form.
  const [touched, setTouched] = useState<Partial<Record<Field, boolean>>>({});
  const [submitted, setSubmitted] = useState(false);
  const [created, setCreated] = useState<Created | null>(null);
  // gcTime 0 and the reset below: the answer, secret included, leaves the mutation cache at once.
  const create = useMutation(trpc.apiKeys.create.mutationOptions({ gcTime: 0 }));

  const problems = problemsOf(draft);
  const shown = (field: Field) => (submitted || touched[field] ? problems[field] : undefined);
  const change = <F extends Field>(field: F, value: Draft[F]) => {
    setDraft({ ...draft, [field]: value });
    setTouched({ ...touched, [field]: true });
  };
  const toggle = (scope: ApiKeyScope, on: boolean) =>
    change(
      "scopes",
      apiKeyScopes.filter((s) => (s === scope ? on : draft.scopes.includes(s))),
    );

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    // The first field that is wrong takes the focus, so its message is read out.
    const firstWrong = (["name", "producer", "scopes", "days"] as const).find((field) => problems[field]);
    if (firstWrong) {
      const target = {
        name: nameRef.current,
        producer: producerRef.current,
        scopes: scopesRef.current?.querySelector("input"),
        days: daysRef.current,
      }[firstWrong];
      target?.focus();
      return;
    }
    const input: RouterInputs["apiKeys"]["create"] = {
      name: draft.name.trim(),
      ...(draft.producer.trim() ? { producer: draft.producer.trim() } : {}),
      scopes: draft.scopes,
      expiresInDays: draft.days.trim() ? Number(draft.days) : null,
    };
    create.mutate(input, {
      onSuccess: ({ apiKey, secret }) => {
        create.reset();
        setCreated({ name: apiKey.name, secret });
        setDraft(EMPTY);
        setTouched({});
        setSubmitted(false);
        void onCreated();
      },
    });
  };
  const finish = () => {
    setCreated(null);
    // Back where the operator started: the form, ready for another key.
    requestAnimationFrame(() => nameRef.current?.focus());
  };

  if (created) return <SecretBox created={created} onDone={finish} />;
  const describedBy = (field: Field, hint?: string) =>
    [hint, shown(field) && `${ids}-${field}-error`].filter(Boolean).join(" ") || undefined;
  const message = (field: Field) =>
    shown(field) && (
      <span id={`${ids}-${field}-error`} className="field-error">
        {shown(field)}
      </span>
    );

  return (
    <section className="card" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>New API key</h2>
      <form onSubmit={submit} className="stack" noValidate>
        {/* The label names the field only; its hint and message describe it (aria-describedby). */}
        <div className="field">
          <label htmlFor={`${ids}-name`}>Name</label>
          <input
            id={`${ids}-name`}
            ref={nameRef}
            value={draft.name}
            maxLength={MAX_API_KEY_NAME_LENGTH}
            autoComplete="off"
            onChange={(e) => change("name", e.target.value)}
            aria-invalid={Boolean(shown("name"))}
            aria-describedby={describedBy("name", `${ids}-name-hint`)}
          />
          <span id={`${ids}-name-hint`} className="hint">
            The service that will hold it, e.g. <span className="keep-whole">messaging-service</span>; no other working key may have it. Up
            to {MAX_API_KEY_NAME_LENGTH} characters.
          </span>
          {message("name")}
        </div>
        <div className="field">
          <label htmlFor={`${ids}-producer`}>Producer (optional)</label>
          <input
            id={`${ids}-producer`}
            ref={producerRef}
            value={draft.producer}
            maxLength={MAX_API_KEY_PRODUCER_LENGTH}
            autoComplete="off"
            placeholder={draft.name.trim() || undefined}
            onChange={(e) => change("producer", e.target.value)}
            aria-invalid={Boolean(shown("producer"))}
            aria-describedby={describedBy("producer", `${ids}-producer-hint`)}
          />
          <span id={`${ids}-producer-hint`} className="hint">
            Whose events the key sends; empty: the name. To replace a key without duplicate events, give the new key the old one&rsquo;s
            producer, switch the service to it, then revoke the old key.
          </span>
          {message("producer")}
        </div>
        <fieldset ref={scopesRef} className="choices scopes" aria-describedby={describedBy("scopes")}>
          <legend>Scopes</legend>
          {apiKeyScopes.map((scope) => (
            <label key={scope} className="checkbox">
              <input
                type="checkbox"
                checked={draft.scopes.includes(scope)}
                onChange={(e) => toggle(scope, e.target.checked)}
                aria-invalid={Boolean(shown("scopes"))}
              />
              <span>
                <code>{scope}</code> <span className="hint">{scopeHints[scope]}</span>
              </span>
            </label>
          ))}
          {message("scopes")}
        </fieldset>
        <div className="field short">
          <label htmlFor={`${ids}-days`}>Expires in days (optional)</label>
          <input
            id={`${ids}-days`}
            ref={daysRef}
            inputMode="numeric"
            autoComplete="off"
            value={draft.days}
            onChange={(e) => change("days", e.target.value)}
            aria-invalid={Boolean(shown("days"))}
            aria-describedby={describedBy("days", `${ids}-days-hint`)}
          />
          <span id={`${ids}-days-hint`} className="hint">
            1 to {MAX_API_KEY_DAYS}; empty: it never expires.
          </span>
          {message("days")}
        </div>
        <ErrorNotice title="Key not created" error={create.error} />
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create key"}
        </button>
      </form>
    </section>
  );
}

/** The secret, this once: focused when it appears, so a screen reader reads the warning first. */
function SecretBox({ created, onDone }: { created: Created; onDone(): void }) {
  const ids = useId();
  const ref = useRef<HTMLElement>(null);
  const [copy, setCopy] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => ref.current?.focus(), []);
  const copySecret = async () => {
    try {
      await navigator.clipboard.writeText(created.secret);
      setCopy("copied");
    } catch {
      setCopy("failed");
    }
  };
  return (
    <section ref={ref} tabIndex={-1} className="card secret-box" aria-labelledby={`${ids}-title`} aria-describedby={`${ids}-what`}>
      <h2 id={`${ids}-title`}>Copy this secret now: it will not be shown again</h2>
      <p id={`${ids}-what`}>
        The secret of the new key{" "}
        <span className="keep-whole">
          <strong>{created.name}</strong>.
        </span>{" "}
        Give it to that service to send as <code>X-API-Key</code>.
      </p>
      <code className="secret">{created.secret}</code>
      <div className="row">
        <button type="button" className="primary" onClick={copySecret}>
          {copy === "copied" ? "Copied" : "Copy"}
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
        <span role="status">
          {copy === "copied" ? "Copied to the clipboard." : copy === "failed" ? "Could not copy: select the secret and copy it." : ""}
        </span>
      </div>
    </section>
  );
}
