-- Session tokens at rest (server/auth/hashed-session-tokens.ts): sessions.token holds the SHA-256 of the token
-- better-auth hands out, in lower-case hex, so the table and its backups hold no usable bearer token. Rows
-- written before this migration hold the token itself; hashing them here keeps those sessions open, since
-- the service now hashes every presented token before looking it up. sha256() is built in from PostgreSQL 11.
UPDATE "sessions" SET "token" = encode(sha256(convert_to("token", 'UTF8')), 'hex');
