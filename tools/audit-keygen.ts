// npm run audit:keygen [-- --origin NAME]
// Makes the audit log's Ed25519 signing key (docs/api.md#audit-log). The first line is the setting to keep
// secret; the second the verifier key that /.well-known/audit-log-key will serve, for auditors. The origin
// names the log in every checkpoint: make it unique to this deployment, e.g. audit.example.com/restriction.
import { hostname } from "node:os";
import { parseArgs } from "node:util";
import { generateSignerKey } from "../server/audit/log/note.js";

const { values } = parseArgs({ options: { origin: { type: "string" } } });
const origin = values.origin ?? `${hostname()}/audit-log`;
const keys = generateSignerKey(origin);
console.log(`AUDIT_SIGNING_KEY=${keys.signer}`);
console.log(`# verifier key (public; served at /.well-known/audit-log-key): ${keys.verifier}`);
